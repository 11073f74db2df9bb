//go:build cgo

package ckern

/*
#include <stdlib.h>
#include "../../c/bitcos_select.h"
#include "../../c/bitcos_neon_tq2.h"
#include "armorder.h"
*/
import "C"

import "unsafe"

// BuildTQ2Order is bitcos_build_tq2_order as this cgo build compiles it
// (the package's flags: the x86-64 baseline on amd64, so the exact order).
func BuildTQ2Order() int { return int(C.bitcos_build_tq2_order()) }

// KernelCount is BITCOS_KERNEL_COUNT.
const KernelCount = int(C.BITCOS_KERNEL_COUNT)

// Select calls bitcos_select; forced == nil passes NULL.
func Select(f Features, forced *string) Choice {
	cf := C.struct_bitcos_cpu_features{built: C.uint(f.Built), pclmul: cbool(f.PCLMUL), vendor: C.int(f.Vendor), family: C.int(f.Family), tq2_0_vnni: cbool(f.TQ2_0VNNI),
		tq2_order: C.int(f.TQ2Order)}
	var cs *C.char
	if forced != nil {
		cs = C.CString(*forced)
		defer C.free(unsafe.Pointer(cs))
	}
	c := C.bitcos_select(&cf, cs)
	return Choice{Kernel: int(c.kernel), Order: int(c.order), Name: C.GoString(c.name), Why: C.GoString(c.why), Forced: c.forced != 0, Vendor: int(c.vendor), TQ2_0VNNI: c.tq2_0_vnni != 0}
}

// SelectLayout calls bitcos_select_layout with k (as bitcos_select returned
// it); forced == nil passes NULL.
func SelectLayout(k Choice, forced *string) LayoutChoice {
	ck := C.struct_bitcos_choice{kernel: C.int(k.Kernel), order: C.int(k.Order), forced: cbool(k.Forced), vendor: C.int(k.Vendor), tq2_0_vnni: cbool(k.TQ2_0VNNI)}
	var cs *C.char
	if forced != nil {
		cs = C.CString(*forced)
		defer C.free(unsafe.Pointer(cs))
	}
	c := C.bitcos_select_layout(&ck, cs)
	return LayoutChoice{Layout: int(c.layout), Name: C.GoString(c.name), Why: C.GoString(c.why)}
}

// SelectDeviceLayout calls bitcos_select_device_layout; forced == nil
// passes NULL.
func SelectDeviceLayout(caps DeviceCaps, group int, forced *string) LayoutChoice {
	cc := C.struct_bitcos_device_caps{native: cbool(caps.Native), tq2_0: cbool(caps.TQ2_0), q2_0: cbool(caps.Q2_0)}
	var cs *C.char
	if forced != nil {
		cs = C.CString(*forced)
		defer C.free(unsafe.Pointer(cs))
	}
	c := C.bitcos_select_device_layout(&cc, C.int(group), cs)
	return LayoutChoice{Layout: int(c.layout), Name: C.GoString(c.name), Why: C.GoString(c.why)}
}

// DeviceLayoutName is bitcos_device_layout_name ("" for NULL).
func DeviceLayoutName(l int) string {
	p := C.bitcos_device_layout_name(C.int(l))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// LayoutName is bitcos_layout_name ("" for NULL).
func LayoutName(l int) string {
	p := C.bitcos_layout_name(C.int(l))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// KernelName is bitcos_kernel_name ("" for NULL).
func KernelName(k int) string {
	p := C.bitcos_kernel_name(C.int(k))
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

// KernelOrder is bitcos_kernel_order.
func KernelOrder(k int) int { return int(C.bitcos_kernel_order(C.int(k))) }

// SlowPdep is bitcos_slow_pdep.
func SlowPdep(vendor, family int) bool { return C.bitcos_slow_pdep(C.int(vendor), C.int(family)) != 0 }

// ARMPath selects a path of c/bitcos_neon_tq2.c.
type ARMPath int

// The paths: the scalar reference, the NEON kernel (its portable build on
// amd64), the batch path on codes, and its four-column form.
const (
	ARMScalar ARMPath = C.CKERN_ARM_SCALAR
	ARMNeon   ARMPath = C.CKERN_ARM_NEON
	ARMCodes  ARMPath = C.CKERN_ARM_CODES
	ARMCodes4 ARMPath = C.CKERN_ARM_CODES4
)

// NeonSIMD is bitcos_have_neon_tq2 of this build (0 here on amd64).
func NeonSIMD() int { return int(C.bitcos_have_neon_tq2()) }

// ARMGEMV runs path p on every row (layout as GEMV).
func ARMGEMV(p ARMPath, k, rows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
	C.ckern_arm_gemv(C.int(p), C.int(k), C.int(rows), u8(bitmap), u8(signs), (*C.uint32_t)(unsafe.Pointer(&off[0])),
		u16(d16), C.float(d32), y, (*C.float)(unsafe.Pointer(&out[0])))
}
