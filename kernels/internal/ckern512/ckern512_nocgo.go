//go:build !cgo

package ckern512

import "unsafe"

// Compiled is false without cgo.
func Compiled() bool { return false }

// Usable is false without cgo.
func Usable() bool { return false }

// GEMV panics without cgo.
func GEMV(int, int, bool, []byte, []byte, []uint32, []uint16, float32, unsafe.Pointer, []float32) {
	panic("ckern512: built without cgo")
}
