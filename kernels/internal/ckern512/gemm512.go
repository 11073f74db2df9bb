//go:build cgo

package ckern512

/*
#include <stdint.h>
int  ckern512_gemm_isa(int vnni);
void ckern512_gemm(int vnni, int nopdep, int k, int rows, int prows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, int ncols, const void * ys, float * out, uint8_t * panels);
void ckern512_gemm_tq2_0(int vnni, int k, int rows, int prows, const uint8_t * tq2, int f32, int ncols, const void * ys, float * out, uint8_t * panels);
*/
import "C"

import (
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// GemmISA is bitcos_gemm_isa of the AVX-512 build of c/bitcos_gemm.c
// without (vnni false) or with AVX512-VNNI.
func GemmISA(vnni bool) int { return int(C.ckern512_gemm_isa(cint(vnni))) }

// CPUHasGemm reports whether this CPU runs that build: AVX-512 F+BW, BMI2,
// FMA, F16C, POPCNT (and AVX-512 VL and VNNI for the VNNI build).
func CPUHasGemm(vnni bool) bool {
	ok := CPUHasTQ2() && cpuid.CPU.Supports(cpuid.F16C, cpuid.POPCNT)
	if vnni {
		ok = ok && cpuid.CPU.Supports(cpuid.AVX512VL, cpuid.AVX512VNNI)
	}
	return ok
}

// Gemm runs that build as ckern.Gemm does (nopdep: the panels decoded by
// bitcos_gemm_panel_nopdep). It executes AVX-512 instructions
// whatever GemmISA says (the fallbacks are compiled with -mavx512f too): call
// it only when CPUHasGemm.
func Gemm(vnni, nopdep bool, k, rows, prows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32,
	ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
	if !CPUHasGemm(vnni) {
		panic("ckern512: this CPU cannot run the AVX-512 gemm build")
	}
	var pd16 *C.uint16_t
	if len(d16) > 0 {
		pd16 = (*C.uint16_t)(unsafe.Pointer(&d16[0]))
	}
	var pp *C.uint8_t
	if len(panels) > 0 {
		pp = (*C.uint8_t)(unsafe.Pointer(&panels[0]))
	}
	C.ckern512_gemm(cint(vnni), cint(nopdep), C.int(k), C.int(rows), C.int(prows), (*C.uint8_t)(unsafe.Pointer(&bitmap[0])),
		(*C.uint8_t)(unsafe.Pointer(&signs[0])), (*C.uint32_t)(unsafe.Pointer(&off[0])), pd16, C.float(d32), C.int(ncols), ys,
		(*C.float)(unsafe.Pointer(&out[0])), pp)
}

// GemmTQ2_0 runs that build as ckern.GemmTQ2_0 does (the panels decoded
// from TQ2_0 rows by bitcos_gemm_panel_tq2_0); only when CPUHasGemm.
func GemmTQ2_0(vnni bool, k, rows, prows int, tq2 []byte, f32 bool, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
	if !CPUHasGemm(vnni) {
		panic("ckern512: this CPU cannot run the AVX-512 gemm build")
	}
	var pp *C.uint8_t
	if len(panels) > 0 {
		pp = (*C.uint8_t)(unsafe.Pointer(&panels[0]))
	}
	C.ckern512_gemm_tq2_0(cint(vnni), C.int(k), C.int(rows), C.int(prows), (*C.uint8_t)(unsafe.Pointer(&tq2[0])), cint(f32), C.int(ncols), ys,
		(*C.float)(unsafe.Pointer(&out[0])), pp)
}

func cint(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
