//go:build cgo

package ckern

/*
#include "gemv.h"
*/
import "C"

import "unsafe"

// Q2_0GEMV runs the Q2_0 yardstick (c/bench/q2_0.h) on rows rows of k
// weights of Q2_0 blocks stored row after row in x, with the column y (k/32
// Q8_0 blocks of 34 bytes): out[r] is row r's dot product.
func Q2_0GEMV(k, rows int, x []byte, y unsafe.Pointer, out []float32) {
	if rows <= 0 {
		return
	}
	C.ckern_q2_0_gemv(C.int(k), C.int(rows), unsafe.Pointer(&x[0]), y, (*C.float)(unsafe.Pointer(&out[0])))
}

// BitcosQ2_0GEMV decodes each of rows BITCOS rows of k weights (scales d64,
// k/64 per row) into Q2_0 blocks and runs the same yardstick on them: the
// native layout's product for weights with scales per 64.
func BitcosQ2_0GEMV(k, rows int, bitmap, signs []byte, off []uint32, d64 []uint16, y unsafe.Pointer, out []float32) {
	if rows <= 0 {
		return
	}
	C.ckern_bitcos_q2_0_gemv(C.int(k), C.int(rows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])), u16(d64), y,
		(*C.float)(unsafe.Pointer(&out[0])))
}
