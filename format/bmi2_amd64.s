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
