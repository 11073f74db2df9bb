//go:build cgo

package ckern

/*
#include <stdint.h>
void bitcos_quantize_row_q8_K_avx2(const float * x, void * y, int64_t k);
int  bitcos_quantize_q8_K_simd_avx2(void);
void bitcos_quantize_row_q8_K_generic(const float * x, void * y, int64_t k);
*/
import "C"

import "unsafe"

// QuantizeQ8K runs c/bitcos_q8_K.c on len(x) activations (a multiple of 256)
// into the Q8_K blocks at y (len(x)/256 blocks of 292 bytes): its AVX2 build
// when avx2 (call it only on a CPU with AVX2 and FMA), else its scalar one.
func QuantizeQ8K(avx2 bool, x []float32, y unsafe.Pointer) {
	if len(x) == 0 {
		return
	}
	if avx2 {
		C.bitcos_quantize_row_q8_K_avx2((*C.float)(unsafe.Pointer(&x[0])), y, C.int64_t(len(x)))
	} else {
		C.bitcos_quantize_row_q8_K_generic((*C.float)(unsafe.Pointer(&x[0])), y, C.int64_t(len(x)))
	}
}

// QuantizeQ8KCompiledAVX2 reports whether the AVX2 build compiled its AVX2
// path (false: the target pragma was lost and it is the scalar loop).
func QuantizeQ8KCompiledAVX2() bool { return C.bitcos_quantize_q8_K_simd_avx2() != 0 }
