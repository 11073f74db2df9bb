//go:build cgo

// Package ckern compiles the C kernels of kernels/c (one translation unit per
// file, see the .c shims here) for the tests and benchmarks of package
// kernels and for kernels/advise (`gguf-bitcos advise`); without cgo it
// builds as stubs with Available = false. The AVX-512 kernels need other
// compiler flags and live in ../ckern512.
//
// Flags: cgo only accepts allow-listed compiler flags, and -mbmi2, -mf16c and
// -ffp-contract=off are not on the list (they would need CGO_CFLAGS_ALLOW in
// every build). So the package is compiled with -O2 alone, and each shim sets
// what its kernel needs with GCC pragmas before including it:
// optimize("fp-contract=off") everywhere (the kernels also keep their
// multiply and add apart with BITCOS_FP_BARRIER), and
// target("avx2,bmi2,f16c,popcnt") (and fma) for the AVX2 kernels. The
// scalar kernels (generic, tq2order) are compiled for the baseline ISA, so
// they run on any amd64 CPU (and exercise the portable fp16 conversion). A compiler without
// GCC's target pragma (clang) builds the AVX2 files as calls to the generic
// kernel: Compiled reports that.
package ckern

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lm
#include "gemv.h"
*/
import "C"

import "unsafe"

// Available reports whether the C kernels were compiled (cgo builds).
const Available = true

// Compiled reports whether v was compiled with its SIMD path in this build
// (false means the function falls back to the scalar kernel of its order).
func Compiled(v Variant) bool {
	switch v {
	case AVX2TQ2:
		return C.bitcos_have_avx2_tq2() != 0
	case AVX2NoPdepTQ2:
		return C.bitcos_have_avx2_nopdep_tq2() != 0
	}
	return true
}

// TQ2CompiledAVX2 reports whether the AVX2 TQ2_0 yardsticks (TQ2AVX2,
// TQ2AVX2Exact) were compiled with AVX2 (else they run the generic one).
func TQ2CompiledAVX2() bool { return C.tq2_have_avx2() != 0 }

// TQ2CompiledGGML reports the same for TQ2AVX2GGML (AVX2, F16C and FMA).
func TQ2CompiledGGML() bool { return C.tq2_have_avx2_ggml() != 0 }

// GCC reports whether the C compiler is GCC, whose target pragmas the shims
// here and in ../ckern512 use to enable each kernel's ISA; other compilers
// (clang) ignore them and build the SIMD files as their fallbacks.
func GCC() bool { return C.ckern_gcc() != 0 }

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func u8(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

func u16(b []uint16) *C.uint16_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint16_t)(unsafe.Pointer(&b[0]))
}

// GEMV runs BITCOS variant v on rows rows of k weights: row r's bitmap at
// bitmap[r*k/8:], its signs at signs[off[r]:], its scales at d16[r*k/256:]
// (or d32 when d16 is nil), one output per row. With repeat, every output is
// row 0's (an L1-resident loop for benchmarks).
func GEMV(v Variant, k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	C.ckern_bitcos_gemv(C.int(v), C.int(k), C.int(rows), cbool(repeat), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}

// TQ2GEMV runs a TQ2_0 kernel (TQ2Generic, TQ2AVX2, TQ2AVX2Exact, TQ2AVX2GGML) on rows
// rows of k weights stored as TQ2_0 blocks in x (repeat: as in GEMV).
func TQ2GEMV(v Variant, k, rows int, repeat bool, x []byte, y unsafe.Pointer, out []float32) {
	C.ckern_tq2_gemv(C.int(v), C.int(k), C.int(rows), cbool(repeat), unsafe.Pointer(&x[0]), y, (*C.float)(unsafe.Pointer(&out[0])))
}

// DequantizeRows decodes rows rows of k weights with the C reference decode
// (bitcos_dequantize_row) into out (rows*k values).
func DequantizeRows(k, rows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, out []float32) {
	C.ckern_dequantize_rows(C.int(k), C.int(rows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), (*C.float)(unsafe.Pointer(&out[0])))
}

// CodesCompiledAVX2 reports whether the AVX2 build of bitcos_codes.c took its
// target pragma.
func CodesCompiledAVX2() bool { return C.bitcos_have_codes_avx2() != 0 }

// CodesGEMV decodes every row to TQ2_0 codes and dots it with y
// (bitcos_row_codes, bitcos_codes_vec_dot_q8_K), with the AVX2 build or the
// scalar one.
func CodesGEMV(avx2 bool, k, rows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	C.ckern_codes_gemv(cbool(avx2), C.int(k), C.int(rows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}

// CodesGEMV4 decodes every row to codes and dots it with four columns at once
// (bitcos_codes_vec_dot_q8_K_x4): out[4*r+j] is row r times column j.
func CodesGEMV4(avx2 bool, k, rows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y [4]unsafe.Pointer, out []float32) {
	C.ckern_codes_gemv4(cbool(avx2), C.int(k), C.int(rows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), y[0], y[1], y[2], y[3], (*C.float)(unsafe.Pointer(&out[0])))
}

// ClmulQPBlock is the size of the permuted activation copy per 256 weights,
// before the block scales (4 bytes per 256 weights) at its end.
const ClmulQPBlock = C.BITCOS_CLMUL_QP_BLOCK

// ClmulCompiled reports whether build b was compiled with its SIMD path.
func ClmulCompiled(b ClmulBuild) bool { return C.ckern_clmul_compiled(C.int(b)) != 0 }

// ClmulPerm returns the permuted copy of the activation column y (k weights)
// that build b makes (bitcos_q8_K_perm_clmul).
func ClmulPerm(b ClmulBuild, k int, y unsafe.Pointer) []byte {
	qp := make([]byte, k/256*(ClmulQPBlock+4))
	C.ckern_clmul_perm(C.int(b), C.int(k), (*C.int8_t)(unsafe.Pointer(&qp[0])), y)
	return qp
}

// ClmulGEMV runs build b of the clmul kernel on every row (the column
// permuted once; repeat: as in GEMV).
func ClmulGEMV(b ClmulBuild, k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	C.ckern_clmul_gemv(C.int(b), C.int(k), C.int(rows), cbool(repeat), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}

// TQ2_0BlocksGEMV runs kernel kind (order: the reference's float order) on
// rows rows of k weights of blocks (f32 blocks when f32) stored row after row
// in x, with the column y: out[r] is row r's dot product. Call the SIMD
// kinds only where TQ2_0AVX2Compiled and the CPU allow.
func TQ2_0BlocksGEMV(kind, order, k, rows int, x []byte, f32 bool, y unsafe.Pointer, out []float32) {
	if rows <= 0 {
		return
	}
	C.ckern_tq2_0_blocks_gemv(C.int(kind), C.int(order), C.int(k), C.int(rows), unsafe.Pointer(&x[0]), cbool(f32), y,
		(*C.float)(unsafe.Pointer(&out[0])))
}
