//go:build !cgo

package ckern512

import "unsafe"

// CPUHas is false without cgo (nothing to run).
func CPUHas() bool { return false }

// CPUHasTQ2 is false without cgo.
func CPUHasTQ2() bool { return false }

// CPUHasTQ2VNNI is false without cgo.
func CPUHasTQ2VNNI() bool { return false }

// CompiledTQ2 is false without cgo.
func CompiledTQ2() bool { return false }

// UsableTQ2 is false without cgo.
func UsableTQ2() bool { return false }

// GEMVTQ2 panics without cgo.
func GEMVTQ2(int, int, bool, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern512: built without cgo")
}

// CompiledTQ2VNNI is false without cgo.
func CompiledTQ2VNNI() bool { return false }

// UsableTQ2VNNI is false without cgo.
func UsableTQ2VNNI() bool { return false }

// GEMVTQ2VNNI panics without cgo.
func GEMVTQ2VNNI(int, int, bool, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern512: built without cgo")
}

// GemmISA is -1 without cgo.
func GemmISA(bool) int { return -1 }

// CPUHasGemm is false without cgo.
func CPUHasGemm(bool) bool { return false }

// Gemm panics without cgo.
func Gemm(bool, bool, int, int, int, []byte, []byte, []uint32, []uint16, float32, int, unsafe.Pointer, []float32, []byte) {
	panic("ckern512: built without cgo")
}

// GemmTQ2_0 panics without cgo.
func GemmTQ2_0(bool, int, int, int, []byte, bool, int, unsafe.Pointer, []float32, []byte) {
	panic("ckern512: built without cgo")
}

// CompiledTQ2_0VNNI is false without cgo.
func CompiledTQ2_0VNNI() bool { return false }

// CPUHasTQ2_0VNNI is false without cgo.
func CPUHasTQ2_0VNNI() bool { return false }

// UsableTQ2_0VNNI is false without cgo.
func UsableTQ2_0VNNI() bool { return false }

// TQ2_0DotVNNI panics without cgo.
func TQ2_0DotVNNI(int, []byte, bool, unsafe.Pointer) float32 { panic("ckern512: built without cgo") }

// TQ2_0GEMVVNNI panics without cgo.
func TQ2_0GEMVVNNI(int, int, []byte, bool, unsafe.Pointer, []float32) {
	panic("ckern512: built without cgo")
}
