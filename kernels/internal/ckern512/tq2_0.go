//go:build cgo

package ckern512

/*
#include <stdint.h>
int ckern512_have_tq2_0_vnni(void);
void ckern512_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
void ckern512_tq2_0_f32_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
void ckern512_tq2_0_gemv_vnni(int k, int rows, const void * x, int f32, const void * y, float * out);
*/
import "C"

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

var compiledTQ2_0VNNI = C.ckern512_have_tq2_0_vnni() != 0

// usableTQ2_0VNNI is UsableTQ2_0VNNI, asked once: TQ2_0GEMVVNNI checks it on
// every call (advise calls it per chunk of 64 rows).
var usableTQ2_0VNNI = UsableTQ2_0VNNI()

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
// weights of TQ2_0 blocks x (f32 blocks and the _f32 kernel when f32) and
// the block_q8_K column y. It panics unless UsableTQ2_0VNNI.
func TQ2_0DotVNNI(k int, x []byte, f32 bool, y unsafe.Pointer) float32 {
	if !UsableTQ2_0VNNI() {
		panic("ckern512: AVX-512 VNNI TQ2_0 kernel not usable on this CPU/build")
	}
	var s C.float
	if f32 {
		C.ckern512_tq2_0_f32_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	} else {
		C.ckern512_tq2_0_vec_dot_q8_K_vnni(C.int(k), &s, unsafe.Pointer(&x[0]), y)
	}
	return float32(s)
}

// TQ2_0GEMVVNNI runs bitcos_tq2_0_vec_dot_q8_K_vnni (AVX-512 VNNI build; its
// _f32 form on f32 blocks when f32) on rows rows of k weights, blocks stored
// row after row in x, with the block_q8_K column y: out[r] is row r's dot
// product, the float32 TQ2_0DotVNNI returns for it (the same C call per row,
// from one cgo call). It panics unless UsableTQ2_0VNNI.
func TQ2_0GEMVVNNI(k, rows int, x []byte, f32 bool, y unsafe.Pointer, out []float32) {
	if !usableTQ2_0VNNI {
		panic("ckern512: AVX-512 VNNI TQ2_0 kernel not usable on this CPU/build")
	}
	if rows <= 0 {
		return
	}
	bb := 66
	if f32 {
		bb = 68
	}
	if len(x) < rows*(k/256)*bb || len(out) < rows {
		panic("ckern512: TQ2_0GEMVVNNI: short blocks or output")
	}
	C.ckern512_tq2_0_gemv_vnni(C.int(k), C.int(rows), unsafe.Pointer(&x[0]), cint(f32), y, (*C.float)(unsafe.Pointer(&out[0])))
}
