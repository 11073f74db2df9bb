//go:build !cgo

package ckern

import "unsafe"

// SelectLayout panics without cgo.
func SelectLayout(Choice, *string) LayoutChoice { panic("ckern: built without cgo") }

// SelectDeviceLayout panics without cgo.
func SelectDeviceLayout(DeviceCaps, int, *string) LayoutChoice { panic("ckern: built without cgo") }

// DeviceLayoutName panics without cgo.
func DeviceLayoutName(int) string { panic("ckern: built without cgo") }

// LayoutName panics without cgo.
func LayoutName(int) string { panic("ckern: built without cgo") }

// BuildTQ2Order panics without cgo.
func BuildTQ2Order() int { panic("ckern: built without cgo") }

// KernelCount is BITCOS_KERNEL_COUNT (unknown without cgo).
const KernelCount = 0

// Select panics without cgo.
func Select(Features, *string) Choice { panic("ckern: built without cgo") }

// KernelName panics without cgo.
func KernelName(int) string { panic("ckern: built without cgo") }

// KernelOrder panics without cgo.
func KernelOrder(int) int { panic("ckern: built without cgo") }

// SlowPdep panics without cgo.
func SlowPdep(int, int) bool { panic("ckern: built without cgo") }

// ARMPath selects a path of c/bitcos_neon_tq2.c.
type ARMPath int

// The paths (see the cgo build).
const (
	ARMScalar ARMPath = iota
	ARMNeon
	ARMCodes
	ARMCodes4
)

// NeonSIMD panics without cgo.
func NeonSIMD() int { panic("ckern: built without cgo") }

// ARMGEMV panics without cgo.
func ARMGEMV(ARMPath, int, int, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern: built without cgo")
}
