//go:build cgo

package ckern

/*
#include "../../c/bitcos_layout.h"

int64_t bitcos_check_rows_generic(int64_t nrows, int n, const uint8_t * bitmap, const int32_t * rows, int64_t sign_bytes);
int64_t bitcos_to_tq2_0_generic(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                                const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, uint8_t * codes);
int bitcos_row_from_tq2_0_generic(int n, const uint8_t * src, uint8_t * bitmap, uint8_t * signs, uint16_t * d16);
void bitcos_row_presence_tq2_0_generic(int n, const uint8_t * src, uint8_t * bitmap);
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
// (rows*k/256*66 bytes); bitmap may be a slice of dst (in place). Returns the
// check's result.
func ToTQ2_0(scalar bool, k, rows int, dst, bitmap []byte, index []int32, signs []byte, d16 []uint16) int64 {
	codes := make([]byte, k)
	if scalar {
		return int64(C.bitcos_to_tq2_0_generic(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
			C.int64_t(len(signs)), u16(d16), u8(codes)))
	}
	return int64(C.bitcos_to_tq2_0(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
		C.int64_t(len(signs)), u16(d16), u8(codes)))
}

// RowFromTQ2_0 runs bitcos_row_from_tq2_0 on one row of k weights; signs
// must hold k/8 bytes. Returns the sign stream's length.
func RowFromTQ2_0(scalar bool, k int, src, bitmap, signs []byte, d16 []uint16) int {
	if scalar {
		return int(C.bitcos_row_from_tq2_0_generic(C.int(k), u8(src), u8(bitmap), u8(signs), u16(d16)))
	}
	return int(C.bitcos_row_from_tq2_0(C.int(k), u8(src), u8(bitmap), u8(signs), u16(d16)))
}

// RowPresenceTQ2_0 runs bitcos_row_presence_tq2_0 on one row of k weights
// (the same C in both builds; scalar picks the other copy).
func RowPresenceTQ2_0(scalar bool, k int, src, bitmap []byte) {
	if scalar {
		C.bitcos_row_presence_tq2_0_generic(C.int(k), u8(src), u8(bitmap))
		return
	}
	C.bitcos_row_presence_tq2_0(C.int(k), u8(src), u8(bitmap))
}

// TQ2_0Dot runs the scalar build of bitcos_tq2_0_vec_dot_q8_K_vnni on k
// weights of TQ2_0 blocks x and the block_q8_K column y.
func TQ2_0Dot(k int, x []byte, y unsafe.Pointer) float32 {
	var s C.float
	C.bitcos_tq2_0_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	return float32(s)
}

// TQ2_0DotScalarCompiled reports that the scalar build is scalar (its
// bitcos_have_tq2_0_vnni is 0, as it must be on the baseline ISA).
func TQ2_0DotScalarCompiled() bool { return C.bitcos_have_tq2_0_vnni() == 0 }
