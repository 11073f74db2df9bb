//go:build cgo

package ckern

/*
#include "gemm.h"
*/
import "C"

import "unsafe"

// GemmISA is build b's bitcos_gemm_isa.
func GemmISA(b GemmBuild) int { return int(C.ckern_gemm_isa(C.int(b))) }

// Gemm runs build b of the batched kernel: rows rows of k weights (as in
// GEMV) in groups of prows rows (1..8: one panel of up to 4 rows, or two
// back to back, per bitcos_gemm_q8_K call), times ncols activation columns
// stored one after another at ys (k/256 blocks each); out[j*rows+r] is row r
// times column j; nopdep: the panels decoded by bitcos_gemm_panel_nopdep.
// panels, when not nil, receives every decoded panel's bytes in order
// (PANEL_SIZE(k) each; a group of more than 4 rows decodes two).
func Gemm(b GemmBuild, nopdep bool, k, rows, prows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32,
	ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
	C.ckern_gemm(C.int(b), cbool(nopdep), C.int(k), C.int(rows), C.int(prows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), C.int(ncols), ys, (*C.float)(unsafe.Pointer(&out[0])), u8(panels))
}

// GemmTQ2_0 runs build b as Gemm does with the panels decoded from TQ2_0 rows
// by bitcos_gemm_panel_tq2_0: row r's k/256 blocks of 66 bytes at
// tq2[r*(k/256)*66:].
func GemmTQ2_0(b GemmBuild, k, rows, prows int, tq2 []byte, f32 bool, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
	C.ckern_gemm_tq2_0(C.int(b), C.int(k), C.int(rows), C.int(prows), u8(tq2), cbool(f32), C.int(ncols), ys, (*C.float)(unsafe.Pointer(&out[0])), u8(panels))
}
