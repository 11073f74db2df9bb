//go:build cgo

package ckern

/*
#include "../../c/bitcos_transcode.h"

int64_t bitcos_to_q2_0_generic(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                               const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, int group, uint8_t * codes);
*/
import "C"

// ToQ2_0 runs bitcos_to_q2_0 (c/bitcos_transcode.h) on rows rows of k
// weights into dst (rows*k/64*18 bytes), the scales d16 in groups of group
// weights; scalar: the build on the scalar row decode. Returns the check's
// result.
func ToQ2_0(scalar bool, k, rows int, dst, bitmap []byte, index []int32, signs []byte, d16 []uint16, group int) int64 {
	codes := make([]byte, k)
	if scalar {
		return int64(C.bitcos_to_q2_0_generic(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
			C.int64_t(len(signs)), u16(d16), C.int(group), u8(codes)))
	}
	return int64(C.bitcos_to_q2_0(C.int64_t(rows), C.int(k), u8(dst), u8(bitmap), i32(index), u8(signs),
		C.int64_t(len(signs)), u16(d16), C.int(group), u8(codes)))
}
