//go:build !cgo

package ckern

import "unsafe"

// GemmISA is -1 without cgo.
func GemmISA(GemmBuild) int { return -1 }

// Gemm panics without cgo.
func Gemm(GemmBuild, bool, int, int, int, []byte, []byte, []uint32, []uint16, float32, int, unsafe.Pointer, []float32, []byte) {
	panic("ckern: built without cgo")
}

// GemmTQ2_0 panics without cgo.
func GemmTQ2_0(GemmBuild, int, int, int, []byte, bool, int, unsafe.Pointer, []float32, []byte) {
	panic("ckern: built without cgo")
}
