package advise

import (
	"fmt"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// gemvFunc runs a kernel over rows [r0, r1) of m with activation column y,
// writing out[r0:r1]. One cgo call. (The shims' repeat mode, one row dotted
// again and again, is not used: a branch predictor learns one row's
// branches, and the scalar kernels then ran 5x faster than on distinct rows.)
type gemvFunc func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32)

// kernel is one measured kernel: a BITCOS kernel of bitcos_select, the
// TQ2_0 yardstick (ggml's kernel, for the TQ2_0 file and, without the VNNI
// kernel, for the tq2_0 layout), or the VNNI kernel of TQ2_0 blocks.
type kernel struct {
	Name  string // bitcos_kernel_name, "tq2_0" (the yardstick) or "tq2_0_vnni"
	Build string // which build of its file runs (VNNI, VPCLMULQDQ...)
	TQ2   bool   // reads m's TQ2_0 blocks
	F32   bool   // reads m's f32 blocks (with TQ2: the tq2_0 layout of an f32-scaled weight)
	// order is the float order (enum bitcos_order) whose Go reference the
	// kernel matches bit for bit, or orderNone: close to the exact sums.
	order int
	run   gemvFunc
}

// bitcos wraps a ckern-style GEMV (the signature of ckern.GEMV without its
// variant) as a gemvFunc on a row range.
func bitcos(f func(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32)) gemvFunc {
	return func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
		var d16 []uint16
		if m.d16 != nil {
			d16 = m.d16[r0*m.K/256:]
		}
		f(m.K, r1-r0, false, m.bitmap[r0*m.K/8:], m.signs, m.off[r0:], d16, m.d32, y, out[r0:])
	}
}

func variant(v ckern.Variant) gemvFunc {
	return bitcos(func(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
		ckern.GEMV(v, k, rows, repeat, bitmap, signs, off, d16, d32, y, out)
	})
}

func clmul(b ckern.ClmulBuild) gemvFunc {
	return bitcos(func(k, rows int, repeat bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
		ckern.ClmulGEMV(b, k, rows, repeat, bitmap, signs, off, d16, d32, y, out)
	})
}

func arm(p ckern.ARMPath) gemvFunc {
	return bitcos(func(k, rows int, _ bool, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, y unsafe.Pointer, out []float32) {
		ckern.ARMGEMV(p, k, rows, bitmap, signs, off, d16, d32, y, out)
	})
}

// bitcosKernel returns the runner of BITCOS kernel name as a build of kind
// build would run it on this CPU (the VNNI build of avx512_tq2 where the CPU
// has VNNI, avx2_clmul with VPCLMULQDQ only in a native build), or an error
// when this cgo build cannot run it here (neon_tq2 on x86, a kernel the
// CPU lacks the ISA of).
func bitcosKernel(name, build string) (kernel, error) {
	k := kernel{Name: name, order: ckern.KernelOrder(kernelIndex()[name])}
	if !kernelRuns(name) {
		return k, fmt.Errorf("kernel %s does not run on this CPU with this build", name)
	}
	switch name {
	case "generic":
		k.run = variant(ckern.Generic)
	case "tq2order":
		k.run = variant(ckern.TQ2Order)
	case "avx2_tq2":
		k.run = variant(ckern.AVX2TQ2)
	case "avx2_nopdep_tq2":
		k.run = variant(ckern.AVX2NoPdepTQ2)
	case "avx512_tq2":
		if ckern512.UsableTQ2VNNI() {
			k.run, k.Build = bitcos(ckern512.GEMVTQ2VNNI), "AVX512-VNNI"
		} else {
			k.run, k.Build = bitcos(ckern512.GEMVTQ2), "AVX-512 F+BW"
		}
	case "avx2_clmul":
		switch {
		case build == BuildNative && cpuid.CPU.Supports(cpuid.VPCLMULQDQ) && ckern.ClmulCompiled(ckern.ClmulYMM):
			k.run, k.Build = clmul(ckern.ClmulYMM), "VPCLMULQDQ"
		case cpuid.CPU.Supports(cpuid.CLMUL) && ckern.ClmulCompiled(ckern.ClmulXMM):
			k.run, k.Build = clmul(ckern.ClmulXMM), "PCLMULQDQ"
		default:
			return k, fmt.Errorf("kernel avx2_clmul needs PCLMULQDQ")
		}
	case "tq2order_arm":
		k.run = arm(ckern.ARMScalar)
	case "neon_tq2":
		k.run = arm(ckern.ARMNeon)
	default:
		return k, fmt.Errorf("advise has no runner for kernel %s", name)
	}
	return k, nil
}

// tq2Kernel is the TQ2_0 kernel a build runs for the TQ2_0 layout: with
// AVX2 (and FMA, which ggml's AVX2 builds have), the yardstick of
// kernels/c/bench/tq2_0.c built as ggml builds its own (-O3, FMA: TQ2_0's
// x86 float order, kernels' TestTQ2YardstickAsGGML); on a CPU without FMA
// its -O2 build without FMA; without AVX2 the generic one.
func tq2Kernel(avx2 bool) kernel {
	tq := func(v ckern.Variant) gemvFunc {
		return func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
			ckern.TQ2GEMV(v, m.K, r1-r0, false, m.tq2[r0*(m.K/256)*66:], y, out[r0:])
		}
	}
	k := kernel{Name: "tq2_0", TQ2: true}
	switch {
	case avx2 && cpuFMA() && ckern.TQ2CompiledGGML():
		k.Build, k.order, k.run = "AVX2+FMA as ggml builds it, kernels/c/bench/tq2_0.c", orderTQ2X86, tq(ckern.TQ2AVX2GGML)
	case avx2 && cpuAVX2() && ckern.TQ2CompiledAVX2():
		k.Build, k.order, k.run = "AVX2 without FMA, -O2, kernels/c/bench/tq2_0.c", orderNone, tq(ckern.TQ2AVX2)
	default:
		k.Build, k.order, k.run = "generic, kernels/c/bench/tq2_0.c", orderExact, tq(ckern.TQ2Generic)
	}
	return k
}

// tq2LayoutKernel is the kernel the loader runs for one column of weights it
// converted at load (patches 0011-0013, the tq2_0 layout). fp16 scales, TQ2_0
// blocks: bitcos_tq2_0_vec_dot_q8_K_vnni (kernels/c/bitcos_tq2_0_vnni.c)
// where the rule's choice carries tq2_0_vnni (the build compiled its AVX-512
// VNNI path: a native build on a CPU with AVX-512 VNNI), else ggml's TQ2_0
// kernel, which is file, the TQ2_0 file's kernel, returned as it is (callers
// tell the two cases apart by name); the VNNI kernel is bit-identical to
// ggml's x86 TQ2_0 kernel. f32 (a per-tensor f32 scale, f32 blocks): the
// kernel of the rule's float order that patch 0013 runs, the VNNI one where
// the choice carries tq2_0_vnni, else in x86 order with avx2 (an AVX2 build)
// bitcos_tq2_0_avx2.c's AVX2 build (an AVX2 build of llama.cpp has no
// AVX-VNNI unless asked), else the scalar reference of the order.
func tq2LayoutKernel(rule Rule, file kernel, f32, avx2 bool) (kernel, error) {
	blocks := func(kind int) gemvFunc {
		return func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
			ckern.TQ2_0BlocksGEMV(kind, rule.Order, m.K, r1-r0, m.tq2f32[r0*(m.K/256)*68:], true, y, out[r0:])
		}
	}
	switch {
	case rule.TQ2_0VNNI && (!f32 || rule.Order == orderTQ2X86):
		if !ckern512.UsableTQ2_0VNNI() {
			return kernel{}, fmt.Errorf("the rule counts on the VNNI TQ2_0 kernel (tq2_0_vnni), which this cgo build or CPU cannot run")
		}
		k := kernel{Name: "tq2_0_vnni", Build: "AVX512-VNNI, kernels/c/bitcos_tq2_0_vnni.c", TQ2: true, F32: f32, order: orderTQ2X86,
			run: func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
				ckern512.TQ2_0GEMVVNNI(m.K, r1-r0, m.tq2[r0*(m.K/256)*66:], false, y, out[r0:])
			}}
		if f32 {
			k.Build += ", f32 blocks"
			k.run = func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
				ckern512.TQ2_0GEMVVNNI(m.K, r1-r0, m.tq2f32[r0*(m.K/256)*68:], true, y, out[r0:])
			}
		}
		return k, nil
	case !f32:
		return file, nil
	case rule.Order == orderTQ2X86 && avx2 && cpuFMA() && ckern.TQ2_0AVX2Compiled(false):
		return kernel{Name: "tq2_0_avx2", Build: "AVX2, kernels/c/bitcos_tq2_0_avx2.c, f32 blocks", TQ2: true, F32: true,
			order: orderTQ2X86, run: blocks(ckern.BlocksAVX2)}, nil
	default:
		return kernel{Name: "tq2_0_ref", Build: "scalar reference, kernels/c/bitcos_layout.c, f32 blocks", TQ2: true, F32: true,
			order: rule.Order, run: blocks(ckern.BlocksRef)}, nil
	}
}
