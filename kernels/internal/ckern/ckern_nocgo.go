//go:build !cgo

package ckern

import "unsafe"

// Available reports whether the C kernels were compiled (cgo builds).
const Available = false

// Compiled is false without cgo.
func Compiled(Variant) bool { return false }

// TQ2CompiledAVX2 is false without cgo.
func TQ2CompiledAVX2() bool { return false }

// TQ2CompiledGGML is false without cgo.
func TQ2CompiledGGML() bool { return false }

// GCC is false without cgo.
func GCC() bool { return false }

// GEMV panics without cgo.
func GEMV(Variant, int, int, bool, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// TQ2GEMV panics without cgo.
func TQ2GEMV(Variant, int, int, bool, []byte, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// DequantizeRows panics without cgo.
func DequantizeRows(int, int, []byte, []byte, []uint32, []uint16, float32, []float32) {
	panic("ckern: built without cgo")
}

// CodesCompiledAVX2 is false without cgo.
func CodesCompiledAVX2() bool { return false }

// CodesGEMV panics without cgo.
func CodesGEMV(bool, int, int, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// CodesGEMV4 panics without cgo.
func CodesGEMV4(bool, int, int, []byte, []byte, []uint32, []uint16, float32, [4]unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// ClmulQPBlock is the size of the permuted activation copy per 256 weights,
// before the block scales (4 bytes per 256 weights) at its end.
const ClmulQPBlock = 288

// ClmulCompiled is false without cgo.
func ClmulCompiled(ClmulBuild) bool { return false }

// ClmulPerm panics without cgo.
func ClmulPerm(ClmulBuild, int, unsafe.Pointer) []byte { panic("ckern: built without cgo") }

// ClmulGEMV panics without cgo.
func ClmulGEMV(ClmulBuild, int, int, bool, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// CheckRows panics without cgo.
func CheckRows(bool, int, int, []byte, []int32, int64) int64 { panic("ckern: built without cgo") }

// ToTQ2_0 panics without cgo.
func ToTQ2_0(bool, int, int, []byte, []byte, []int32, []byte, []uint16, float32) int64 {
	panic("ckern: built without cgo")
}

// RowFromTQ2_0 panics without cgo.
func RowFromTQ2_0(bool, int, []byte, bool, []byte, []byte, []uint16) (int, float32) {
	panic("ckern: built without cgo")
}

// RowPresenceTQ2_0 panics without cgo.
func RowPresenceTQ2_0(bool, int, []byte, bool, []byte) { panic("ckern: built without cgo") }

// TQ2_0Dot panics without cgo.
func TQ2_0Dot(int, []byte, bool, unsafe.Pointer) float32 { panic("ckern: built without cgo") }

// TQ2_0DotRef panics without cgo.
func TQ2_0DotRef(int, []byte, bool, int, unsafe.Pointer) float32 { panic("ckern: built without cgo") }

// TQ2_0DotAVX2 panics without cgo.
func TQ2_0DotAVX2(int, []byte, bool, bool, unsafe.Pointer) float32 { panic("ckern: built without cgo") }

// TQ2_0AVX2Compiled is false without cgo.
func TQ2_0AVX2Compiled(bool) bool { return false }

// TQ2_0DotScalarCompiled is false without cgo.
func TQ2_0DotScalarCompiled() bool { return false }

// TQ2_0BlocksGEMV panics without cgo.
func TQ2_0BlocksGEMV(int, int, int, int, []byte, bool, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// ToQ2_0 panics without cgo.
func ToQ2_0(bool, int, int, []byte, []byte, []int32, []byte, []uint16, int) int64 {
	panic("ckern: built without cgo")
}

// Q2_0GEMV panics without cgo.
func Q2_0GEMV(int, int, []byte, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// BitcosQ2_0GEMV panics without cgo.
func BitcosQ2_0GEMV(int, int, []byte, []byte, []uint32, []uint16, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}

// QuantizeQ8K panics without cgo.
func QuantizeQ8K(bool, []float32, unsafe.Pointer) { panic("ckern: built without cgo") }

// QuantizeQ8KCompiledAVX2 is false without cgo.
func QuantizeQ8KCompiledAVX2() bool { return false }
