//go:build cgo

package ckern

/*
#include "../../c/bitcos_layout.h"

int64_t bitcos_check_rows_generic(int64_t nrows, int n, const uint8_t * bitmap, const int32_t * rows, int64_t sign_bytes);
int64_t bitcos_to_tq2_0_generic(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                                const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, float d32, uint8_t * codes);
int bitcos_row_from_tq2_0_generic(int n, const uint8_t * src, int f32, uint8_t * bitmap, uint8_t * signs, uint16_t * d16,
                                  float * d32);
void bitcos_row_presence_tq2_0_generic(int n, const uint8_t * src, int f32, uint8_t * bitmap);
int  bitcos_have_tq2_0_avx2_vnni(void);
void bitcos_tq2_0_vec_dot_q8_K_avx2_vnni(int n, float * s, const void * x, const void * y);
void bitcos_tq2_0_f32_vec_dot_q8_K_avx2_vnni(int n, float * s, const void * x, const void * y);
*/
import "C"

import "unsafe"

// The layout helpers of c/bitcos_layout.c come in two builds here: on the
// AVX2 build of bitcos_row_codes (call them only where CodesCompiledAVX2 and
// the CPU allow) with the compiler's popcount, and (scalar) on the scalar
// bitcos_row_codes with the portable popcount.

func i32(b []int32) *C.int32_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.int32_t)(unsafe.Pointer(&b[0]))
}

// CheckRows runs bitcos_check_rows: -1, or the first bad row.
func CheckRows(scalar bool, k, rows int, bitmap []byte, index []int32, signBytes int64) int64 {
	if scalar {
		return int64(C.bitcos_check_rows_generic(C.int64_t(rows), C.int(k), u8(bitmap), i32(index), C.int64_t(signBytes)))
	}
	return int64(C.bitcos_check_rows(C.int64_t(rows), C.int(k), u8(bitmap), i32(index), C.int64_t(signBytes)))
}

// ToTQ2_0 runs bitcos_to_tq2_0 on rows rows of k weights into dst
// (rows*k/256*66 bytes, or 68 per block with d16 nil: f32 blocks of d32);
// bitmap may be a slice of dst (in place). Returns the check's result.
func ToTQ2_0(scalar bool, k, rows int, dst, bitmap []byte, index []int32, signs []byte, d16 []uint16, d32 float32) int64 {
	codes := make([]byte, k)
	if scalar {
		return int64(C.bitcos_to_tq2_0_generic(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
			C.int64_t(len(signs)), u16(d16), C.float(d32), u8(codes)))
	}
	return int64(C.bitcos_to_tq2_0(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
		C.int64_t(len(signs)), u16(d16), C.float(d32), u8(codes)))
}

// RowFromTQ2_0 runs bitcos_row_from_tq2_0 on one row of k weights (f32
// blocks when f32, then the scale is returned, else written to d16); signs
// must hold k/8 bytes. Returns the sign stream's length.
func RowFromTQ2_0(scalar bool, k int, src []byte, f32 bool, bitmap, signs []byte, d16 []uint16) (int, float32) {
	var d32 C.float
	if scalar {
		n := int(C.bitcos_row_from_tq2_0_generic(C.int(k), u8(src), cbool(f32), u8(bitmap), u8(signs), u16(d16), &d32))
		return n, float32(d32)
	}
	n := int(C.bitcos_row_from_tq2_0(C.int(k), u8(src), cbool(f32), u8(bitmap), u8(signs), u16(d16), &d32))
	return n, float32(d32)
}

// RowPresenceTQ2_0 runs bitcos_row_presence_tq2_0 on one row of k weights
// (the same C in both builds; scalar picks the other copy).
func RowPresenceTQ2_0(scalar bool, k int, src []byte, f32 bool, bitmap []byte) {
	if scalar {
		C.bitcos_row_presence_tq2_0_generic(C.int(k), u8(src), cbool(f32), u8(bitmap))
		return
	}
	C.bitcos_row_presence_tq2_0(C.int(k), u8(src), cbool(f32), u8(bitmap))
}

// TQ2_0Dot runs the scalar build of bitcos_tq2_0_vec_dot_q8_K_vnni (or its
// _f32 form, f32 blocks) on k weights of blocks x and the block_q8_K column y.
func TQ2_0Dot(k int, x []byte, f32 bool, y unsafe.Pointer) float32 {
	var s C.float
	if f32 {
		C.bitcos_tq2_0_f32_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	} else {
		C.bitcos_tq2_0_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	}
	return float32(s)
}

// TQ2_0DotRef runs bitcos_tq2_0_vec_dot_q8_K_ref in float order order
// (enum bitcos_order: 0 exact, 1 x86, 2 ARM).
func TQ2_0DotRef(k int, x []byte, f32 bool, order int, y unsafe.Pointer) float32 {
	var s C.float
	C.bitcos_tq2_0_vec_dot_q8_K_ref(C.int(k), &s, unsafe.Pointer(&x[0]), cbool(f32), C.int(order), y)
	return float32(s)
}

// TQ2_0DotAVX2 runs bitcos_tq2_0_avx2.c's kernel (or its _f32 form): its
// AVX-VNNI build when vnni, else its AVX2 build. Call it only where
// TQ2_0AVX2Compiled(vnni) and the CPU allow.
func TQ2_0DotAVX2(k int, x []byte, f32, vnni bool, y unsafe.Pointer) float32 {
	var s C.float
	p := unsafe.Pointer(&x[0])
	switch {
	case vnni && f32:
		C.bitcos_tq2_0_f32_vec_dot_q8_K_avx2_vnni(C.int(k), &s, p, y)
	case vnni:
		C.bitcos_tq2_0_vec_dot_q8_K_avx2_vnni(C.int(k), &s, p, y)
	case f32:
		C.bitcos_tq2_0_f32_vec_dot_q8_K_avx2(C.int(k), &s, p, y)
	default:
		C.bitcos_tq2_0_vec_dot_q8_K_avx2(C.int(k), &s, p, y)
	}
	return float32(s)
}

// TQ2_0AVX2Compiled reports how the AVX-VNNI build (vnni) or the AVX2 build
// of bitcos_tq2_0_avx2.c compiled: true when as asked (bitcos_have_tq2_0_avx2
// 2 or 1), false when it fell back to the scalar reference (a compiler
// without GCC's target pragma).
func TQ2_0AVX2Compiled(vnni bool) bool {
	if vnni {
		return C.bitcos_have_tq2_0_avx2_vnni() == 2
	}
	return C.bitcos_have_tq2_0_avx2() == 1
}

// TQ2_0DotScalarCompiled reports that the scalar build is scalar (its
// bitcos_have_tq2_0_vnni is 0, as it must be on the baseline ISA).
func TQ2_0DotScalarCompiled() bool { return C.bitcos_have_tq2_0_vnni() == 0 }
