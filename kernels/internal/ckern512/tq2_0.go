//go:build cgo

package ckern512

/*
#include <stdint.h>
int ckern512_have_tq2_0_vnni(void);
void ckern512_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
*/
import "C"

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

var compiledTQ2_0VNNI = C.ckern512_have_tq2_0_vnni() != 0

// CompiledTQ2_0VNNI reports whether bitcos_tq2_0_vnni.c took its AVX-512
// VNNI path here.
func CompiledTQ2_0VNNI() bool { return compiledTQ2_0VNNI }

// CPUHasTQ2_0VNNI reports whether this CPU runs that path: AVX-512
// F/BW/VL/VNNI, F16C and FMA.
func CPUHasTQ2_0VNNI() bool {
	return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.AVX512VL, cpuid.AVX512VNNI, cpuid.F16C, cpuid.FMA3)
}

// UsableTQ2_0VNNI reports whether the VNNI path was compiled and this CPU
// runs it.
func UsableTQ2_0VNNI() bool { return CompiledTQ2_0VNNI() && CPUHasTQ2_0VNNI() }

// TQ2_0DotVNNI runs bitcos_tq2_0_vec_dot_q8_K_vnni (AVX-512 VNNI build) on k
// weights of TQ2_0 blocks x and the block_q8_K column y. It panics unless
// UsableTQ2_0VNNI.
func TQ2_0DotVNNI(k int, x []byte, y unsafe.Pointer) float32 {
	if !UsableTQ2_0VNNI() {
		panic("ckern512: AVX-512 VNNI TQ2_0 kernel not usable on this CPU/build")
	}
	var s C.float
	C.ckern512_tq2_0_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	return float32(s)
}
