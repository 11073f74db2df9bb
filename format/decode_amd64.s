//go:build !noasm

#include "textflag.h"

// Fast paths of the 2-bit decoders (decode_amd64.go). Code c = b1:b0 of a
// weight maps to present = b1 | ^b0, neg = ^(b1 | b0), code 3 = b1 & b0.
//
// TQ2_0 and I2_S (AVX2): 32 code bytes hold 128 weights, weight 32g+m in
// byte m, one 2-bit pair per group g (TQ2_0: bits 2g+1:2g; I2_S: bits
// 7-2g:6-2g). With x the 32 bytes and y = x+x (bytewise, so b0 of every pair
// moves onto b1's odd bit position without crossing bytes), at every odd bit:
//
//	z = ^x & y = ^b1 & b0  (the weight is 0, i.e. ^present)
//	o = x | y  = b1 | b0   (^neg)
//	x & y      = b1 & b0   (code 3; OR-accumulated over the tensor)
//
// The pair at odd bit 7-s of every byte is brought to bit 7 by VPSLLW $s
// (bit 7 of a 16-bit lane's low byte comes from its bit 7-s, bit 15 from
// 15-s = 8+7-s, the same bit of the high byte: no bleed into the bits read)
// and VPMOVMSKB gathers it for 32 consecutive weights. s = 0, 2, 4, 6 gives
// groups 3, 2, 1, 0 of TQ2_0 and 0, 1, 2, 3 of I2_S. Planes word 0 of the
// 128 weights is groups 0 | 1<<32, word 1 groups 2 | 3<<32, each inverted.

// MASKS128 loads 32 code bytes at src and leaves the 32-bit masks of z and o
// for shift s in: s=0: R8 (z), R9 (o); s=2: R10, R11; s=4: R12, R13;
// s=6: AX, BX. Y8 accumulates code 3 (at odd bits; even bits are garbage).
#define MASKS128(src) \
	VMOVDQU   src, Y0;      \
	VPADDB    Y0, Y0, Y1;   \
	VPAND     Y0, Y1, Y2;   \
	VPOR      Y2, Y8, Y8;   \
	VPANDN    Y1, Y0, Y2;   \
	VPOR      Y0, Y1, Y3;   \
	VPMOVMSKB Y2, R8;       \
	VPMOVMSKB Y3, R9;       \
	VPSLLW    $2, Y2, Y4;   \
	VPSLLW    $2, Y3, Y5;   \
	VPMOVMSKB Y4, R10;      \
	VPMOVMSKB Y5, R11;      \
	VPSLLW    $4, Y2, Y6;   \
	VPSLLW    $4, Y3, Y7;   \
	VPMOVMSKB Y6, R12;      \
	VPMOVMSKB Y7, R13;      \
	VPSLLW    $6, Y2, Y4;   \
	VPSLLW    $6, Y3, Y5;   \
	VPMOVMSKB Y4, AX;       \
	VPMOVMSKB Y5, BX

// WORD stores ^(lo | hi<<32) to dst; hi is clobbered.
#define WORD(lo, hi, dst) \
	SHLQ $32, hi; \
	ORQ  lo, hi;  \
	NOTQ hi;      \
	MOVQ hi, dst

// TQ2_0 order: group g at shift 6-2g.
#define STORE_TQ2(p0, p1, n0, n1) \
	WORD(AX, R12, p0);  \
	WORD(BX, R13, n0);  \
	WORD(R10, R8, p1);  \
	WORD(R11, R9, n1)

// I2_S order: group g at shift 2g.
#define STORE_I2S(p0, p1, n0, n1) \
	WORD(R8, R10, p0);  \
	WORD(R9, R11, n0);  \
	WORD(R12, AX, p1);  \
	WORD(R13, BX, n1)

// CODE3 sets ret to whether Y8 holds a code 3 (any odd bit set).
#define CODE3(ret) \
	MOVL         $0xaaaaaaaa, AX; \
	MOVQ         AX, X9;          \
	VPBROADCASTD X9, Y9;          \
	VPTEST       Y9, Y8;          \
	SETNE        ret;             \
	VZEROUPPER

// func decodeTQ2AVX2(pres, neg []uint64, src []byte) (bad bool)
// Decodes len(pres)/4 TQ2_0 blocks (66 bytes: 64 code bytes, fp16 d) of src
// into pres and neg (4 words per block); bad reports a code 3.
TEXT ·decodeTQ2AVX2(SB), NOSPLIT, $0-73
	MOVQ  pres_base+0(FP), DI
	MOVQ  pres_len+8(FP), CX
	MOVQ  neg_base+24(FP), DX
	MOVQ  src_base+48(FP), SI
	SHRQ  $2, CX
	VPXOR Y8, Y8, Y8
	TESTQ CX, CX
	JZ    tq2_done

tq2_loop:
	MASKS128((SI))
	STORE_TQ2(0(DI), 8(DI), 0(DX), 8(DX))
	MASKS128(32(SI))
	STORE_TQ2(16(DI), 24(DI), 16(DX), 24(DX))
	ADDQ $66, SI
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ CX
	JNZ  tq2_loop

tq2_done:
	CODE3(bad+72(FP))
	RET

// func decodeI2SAVX2(pres, neg []uint64, src []byte) (bad bool)
// Decodes len(pres)/2 I2_S groups (32 bytes, 128 weights) of src into pres
// and neg (2 words per group); bad reports a code 3.
TEXT ·decodeI2SAVX2(SB), NOSPLIT, $0-73
	MOVQ  pres_base+0(FP), DI
	MOVQ  pres_len+8(FP), CX
	MOVQ  neg_base+24(FP), DX
	MOVQ  src_base+48(FP), SI
	SHRQ  $1, CX
	VPXOR Y8, Y8, Y8
	TESTQ $1, CX
	JZ    i2s_pairs

	// Odd count: one group first, then pairs.
	MASKS128((SI))
	STORE_I2S(0(DI), 8(DI), 0(DX), 8(DX))
	ADDQ $32, SI
	ADDQ $16, DI
	ADDQ $16, DX

i2s_pairs:
	SHRQ $1, CX
	JZ   i2s_done

i2s_loop:
	MASKS128((SI))
	STORE_I2S(0(DI), 8(DI), 0(DX), 8(DX))
	MASKS128(32(SI))
	STORE_I2S(16(DI), 24(DI), 16(DX), 24(DX))
	ADDQ $64, SI
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ CX
	JNZ  i2s_loop

i2s_done:
	CODE3(bad+72(FP))
	RET

// func decodeQ2BMI2(pres, neg []uint64, src []byte) (bad bool)
// Decodes len(pres) Q2_0 blocks (18 bytes: fp16 d, 16 code bytes) of src
// into pres and neg (1 word per block); bad reports a code 3. The two code
// words hold 32 weights each, weight j at bits 2j+1:2j: pext with the even
// and odd bit masks gives their b0 and b1 planes in weight order.
TEXT ·decodeQ2BMI2(SB), NOSPLIT, $0-73
	MOVQ  pres_base+0(FP), DI
	MOVQ  pres_len+8(FP), CX
	MOVQ  neg_base+24(FP), DX
	MOVQ  src_base+48(FP), SI
	MOVQ  $0x5555555555555555, R8
	MOVQ  $0xaaaaaaaaaaaaaaaa, R9
	XORQ  R10, R10
	TESTQ CX, CX
	JZ    q2_done

q2_loop:
	MOVQ  2(SI), AX
	MOVQ  10(SI), BX
	PEXTQ R8, AX, R11
	PEXTQ R8, BX, R12
	SHLQ  $32, R12
	ORQ   R12, R11   // b0
	PEXTQ R9, AX, R12
	PEXTQ R9, BX, R13
	SHLQ  $32, R13
	ORQ   R13, R12   // b1
	MOVQ  R11, AX
	NOTQ  AX
	ORQ   R12, AX    // present = b1 | ^b0
	MOVQ  R11, BX
	ORQ   R12, BX
	NOTQ  BX         // neg = ^(b1 | b0)
	ANDQ  R11, R12
	ORQ   R12, R10   // code 3
	MOVQ  AX, (DI)
	MOVQ  BX, (DX)
	ADDQ  $18, SI
	ADDQ  $8, DI
	ADDQ  $8, DX
	DECQ  CX
	JNZ   q2_loop

q2_done:
	TESTQ R10, R10
	SETNE bad+72(FP)
	RET
