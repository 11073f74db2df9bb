//go:build cgo

// Package ckern512 compiles kernels/c/bitcos_avx512_tq2.c (twice: without
// and with AVX512-VNNI) and the other AVX-512 kernel files, each as its own
// translation unit with -mavx512f -mavx512bw (BMI2, F16C, VNNI and
// fp-contract=off come from pragmas in the shim: cgo rejects those flags),
// for the tests of package kernels and for kernels/advise. Its
// functions execute AVX-512 instructions: call them only when the CPU has
// AVX-512 F and BW (Usable).
package ckern512

/*
#cgo CFLAGS: -O2 -mavx512f -mavx512bw
#include <stdint.h>
#include "../../c/bitcos.h"
#include "../../c/bitcos_tq2fast.h"
int bitcos_have_avx512_tq2_vnni(void);
void ckern512_gemv(int tq2, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, const void * y, float * out);
*/
import "C"

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// What the C files were compiled with, asked once: the GEMVs check it on
// every call, and a cgo call costs tens of ns (gguf-bitcos advise times
// GEMVs of 64 rows per call).
var (
	compiledTQ2     = C.bitcos_have_avx512_tq2() != 0
	compiledTQ2VNNI = C.bitcos_have_avx512_tq2_vnni() != 0
)

// CompiledTQ2 reports whether the AVX-512 path of the TQ2_0-order kernel was
// compiled (the compiler took the flags, FMA among them); it does not say
// the CPU can run it.
func CompiledTQ2() bool { return compiledTQ2 }

// CompiledTQ2VNNI reports whether the VNNI build of the TQ2_0-order kernel
// took its flags.
func CompiledTQ2VNNI() bool { return compiledTQ2VNNI }

// CPUHas reports whether this CPU has the base ISA of the AVX-512 kernels:
// AVX-512 F and BW, and BMI2.
func CPUHas() bool { return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512BW, cpuid.BMI2) }

// CPUHasTQ2 reports whether this CPU runs the TQ2_0-order kernel: CPUHas
// and FMA.
func CPUHasTQ2() bool { return CPUHas() && cpuid.CPU.Supports(cpuid.FMA3) }

// CPUHasTQ2VNNI reports whether this CPU runs the VNNI build: CPUHasTQ2 and
// AVX-512 VL and VNNI.
func CPUHasTQ2VNNI() bool { return CPUHasTQ2() && cpuid.CPU.Supports(cpuid.AVX512VL, cpuid.AVX512VNNI) }

// UsableTQ2VNNI reports whether the VNNI build was compiled and this CPU runs
// it.
func UsableTQ2VNNI() bool { return CompiledTQ2VNNI() && CPUHasTQ2VNNI() }

// UsableTQ2 reports whether the TQ2_0-order kernel was compiled and this CPU
// runs it.
func UsableTQ2() bool { return CompiledTQ2() && CPUHasTQ2() }

// GEMVTQ2 runs the AVX-512 kernel in TQ2_0's float order
// (bitcos_vec_dot_q8_K_avx512_tq2) on rows rows of k weights (see
// ckern.GEMV; repeat: every output from row 0). It panics unless UsableTQ2.
func GEMVTQ2(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	if !UsableTQ2() {
		panic("ckern512: AVX-512 F+BW with FMA not usable on this CPU/build")
	}
	gemv(1, k, rows, repeat, bitmap, signs, off, d16, d32, y, out)
}

// GEMVTQ2VNNI is GEMVTQ2 with the kernel built with AVX512-VNNI. It panics
// unless UsableTQ2VNNI.
func GEMVTQ2VNNI(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	if !UsableTQ2VNNI() {
		panic("ckern512: AVX-512 VNNI not usable on this CPU/build")
	}
	gemv(2, k, rows, repeat, bitmap, signs, off, d16, d32, y, out)
}

func gemv(tq2 C.int, k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	var pd16 *C.uint16_t
	if len(d16) > 0 {
		pd16 = (*C.uint16_t)(unsafe.Pointer(&d16[0]))
	}
	rep := C.int(0)
	if repeat {
		rep = 1
	}
	C.ckern512_gemv(tq2, C.int(k), C.int(rows), rep, (*C.uint8_t)(unsafe.Pointer(&bitmap[0])), (*C.uint8_t)(unsafe.Pointer(&signs[0])),
		(*C.uint32_t)(unsafe.Pointer(&off[0])), pd16, C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}
