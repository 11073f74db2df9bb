//go:build !noasm

#include "textflag.h"

// func pextWordsBMI2(dst, v, m []uint64)
// dst[i] = pext(v[i], m[i]) for i < len(dst); v and m are at least as long.
TEXT ·pextWordsBMI2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ v_base+24(FP), SI
	MOVQ m_base+48(FP), DX
	TESTQ CX, CX
	JZ   pext_done
pext_loop:
	MOVQ (SI), AX
	MOVQ (DX), BX
	PEXTQ BX, AX, AX
	MOVQ AX, (DI)
	ADDQ $8, SI
	ADDQ $8, DX
	ADDQ $8, DI
	DECQ CX
	JNZ  pext_loop
pext_done:
	RET

// func pdepWordsBMI2(dst, v, m []uint64)
// dst[i] = pdep(v[i], m[i]) for i < len(dst); v and m are at least as long.
TEXT ·pdepWordsBMI2(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ v_base+24(FP), SI
	MOVQ m_base+48(FP), DX
	TESTQ CX, CX
	JZ   pdep_done
pdep_loop:
	MOVQ (SI), AX
	MOVQ (DX), BX
	PDEPQ BX, AX, AX
	MOVQ AX, (DI)
	ADDQ $8, SI
	ADDQ $8, DX
	ADDQ $8, DI
	DECQ CX
	JNZ  pdep_loop
pdep_done:
	RET

// func depositRowBMI2(neg []uint64, signs []byte, pos int, pres []uint64) int
// For each i < len(pres): c = popcount(pres[i]); take the c sign bits at bit
// pos of signs (LSB first), neg[i] = pdep(bits, pres[i]); pos += c. Returns
// pos. The caller guarantees the 8-byte loads (and the ninth byte of a
// misaligned field) stay inside signs.
TEXT ·depositRowBMI2(SB), NOSPLIT, $0-88
	MOVQ neg_base+0(FP), DI
	MOVQ signs_base+24(FP), SI
	MOVQ pos+48(FP), R8
	MOVQ pres_base+56(FP), DX
	MOVQ pres_len+64(FP), CX
	TESTQ CX, CX
	JZ   dep_done
dep_loop:
	MOVQ (DX), AX          // m
	POPCNTQ AX, BX         // c
	TESTQ BX, BX
	JZ   dep_zero
	MOVQ R8, R9
	SHRQ $3, R9            // byte index
	MOVQ R8, R10
	ANDQ $7, R10           // bit shift
	MOVQ (SI)(R9*1), R11
	SHRXQ R10, R11, R11    // v = load >> sh
	LEAQ (BX)(R10*1), R12
	CMPQ R12, $64
	JBE  dep_nox
	MOVBQZX 8(SI)(R9*1), R13
	MOVQ $64, R12
	SUBQ R10, R12
	SHLXQ R12, R13, R13
	ORQ  R13, R11
dep_nox:
	BZHIQ BX, R11, R11     // keep the low c bits
	PDEPQ AX, R11, R11
	MOVQ R11, (DI)
	ADDQ BX, R8
	JMP  dep_next
dep_zero:
	MOVQ $0, (DI)
dep_next:
	ADDQ $8, DX
	ADDQ $8, DI
	DECQ CX
	JNZ  dep_loop
dep_done:
	MOVQ R8, ret+80(FP)
	RET

// func packRowBMI2(out []byte, pres, neg []uint64) int
// Compacts one row's signs: for each word, pext(neg, pres) appended LSB
// first to out (exactly the row's ceil(nnz/8) bytes; 8-byte stores happen
// only for complete 64-bit groups, which lie inside it). Returns the bytes
// written.
TEXT ·packRowBMI2(SB), NOSPLIT, $0-80
	MOVQ out_base+0(FP), DI
	MOVQ pres_base+24(FP), DX
	MOVQ pres_len+32(FP), CX
	MOVQ neg_base+48(FP), SI
	XORQ R14, R14          // o
	XORQ R11, R11          // acc
	XORQ R12, R12          // nacc
	TESTQ CX, CX
	JZ   pack_tail
pack_loop:
	MOVQ (DX), AX          // m
	POPCNTQ AX, BX         // c
	TESTQ BX, BX
	JZ   pack_next
	MOVQ (SI), R9
	PEXTQ AX, R9, R9       // s = pext(neg, m)
	SHLXQ R12, R9, R10     // s << nacc
	ORQ  R10, R11          // acc |= s << nacc
	LEAQ (R12)(BX*1), R13  // nacc + c
	CMPQ R13, $64
	JB   pack_keep
	MOVQ R11, (DI)(R14*1)  // flush 64 bits
	ADDQ $8, R14
	MOVQ $64, R10
	SUBQ R12, R10          // used = 64 - nacc
	TESTQ R12, R12
	JNZ  pack_part
	XORQ R11, R11          // used == 64: nothing left of s (c == 64)
	JMP  pack_rest
pack_part:
	SHRXQ R10, R9, R11     // acc = s >> used
pack_rest:
	SUBQ $64, R13          // nacc = nacc + c - 64
	MOVQ R13, R12
	JMP  pack_next
pack_keep:
	MOVQ R13, R12
pack_next:
	ADDQ $8, DX
	ADDQ $8, SI
	DECQ CX
	JNZ  pack_loop
pack_tail:
	TESTQ R12, R12
	JLE  pack_done
	MOVB R11, (DI)(R14*1)
	SHRQ $8, R11
	INCQ R14
	SUBQ $8, R12
	JMP  pack_tail
pack_done:
	MOVQ R14, ret+72(FP)
	RET
