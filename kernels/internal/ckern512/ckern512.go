//go:build cgo

// Package ckern512 compiles kernels/c/bitcos_avx512.c as its own translation
// unit with -mavx512f -mavx512bw (BMI2, F16C and fp-contract=off come from
// pragmas in the shim: cgo rejects those flags), for the tests of package
// kernels. Its
// functions execute AVX-512 instructions: call them only when the CPU has
// AVX-512 F and BW (Usable).
package ckern512

/*
#cgo CFLAGS: -O2 -mavx512f -mavx512bw
#include <stdint.h>
#include "../../c/bitcos.h"
void ckern512_gemv(int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, const void * y, float * out);
*/
import "C"

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// Compiled reports whether the AVX-512 path was compiled (the compiler took
// the flags); it does not say the CPU can run it.
func Compiled() bool { return C.bitcos_have_avx512() != 0 }

// Usable reports whether the kernel was compiled and this CPU runs AVX-512 F
// and BW (and BMI2).
func Usable() bool {
	return Compiled() && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.BMI2)
}

// GEMV runs the AVX-512 kernel on rows rows of k weights (see ckern.GEMV;
// repeat: every output from row 0).
// It panics unless Usable.
func GEMV(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	if !Usable() {
		panic("ckern512: AVX-512 F+BW not usable on this CPU/build")
	}
	var pd16 *C.uint16_t
	if len(d16) > 0 {
		pd16 = (*C.uint16_t)(unsafe.Pointer(&d16[0]))
	}
	rep := C.int(0)
	if repeat {
		rep = 1
	}
	C.ckern512_gemv(C.int(k), C.int(rows), rep, (*C.uint8_t)(unsafe.Pointer(&bitmap[0])), (*C.uint8_t)(unsafe.Pointer(&signs[0])),
		(*C.uint32_t)(unsafe.Pointer(&off[0])), pd16, C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}
