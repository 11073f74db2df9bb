package advise

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// The C enum bitcos_vendor (c/bitcos_select.h; enum bitcos_order is in
// check.go).
const (
	vendorOther = 0
	vendorIntel = 1
	vendorAMD   = 2
	vendorHygon = 3
)

// Builds: which kernels a llama.cpp build compiles with their SIMD paths
// (the test table of kernels/select_test.go), as a restriction of what this
// cgo build compiled and this CPU runs. BuildNative keeps all of it (a
// GGML_NATIVE build on this CPU); BuildAVX2 is a GGML_NATIVE=OFF build with
// AVX2 (+BMI2, FMA, F16C, PCLMULQDQ) and AVX-512 off; BuildBaseline the
// x86-64 baseline (no SIMD kernel).
const (
	BuildNative   = "native"
	BuildAVX2     = "avx2"
	BuildBaseline = "baseline"
)

// Builds lists the --build values.
var Builds = []string{BuildNative, BuildAVX2, BuildBaseline}

// avx2Build are the kernels an AVX2 build (no AVX-512) compiles.
var avx2Build = []string{"avx2_clmul", "avx2_tq2", "avx2_nopdep_tq2"}

// scalarKernels are compiled in every build (bitcos-cpu.c's bitcos_built).
var scalarKernels = []string{"generic", "tq2order", "tq2order_arm"}

// cpuAVX2 is the ISA of the AVX2 shims (their target pragmas), cpuFMA that of
// the TQ2_0-order ones.
func cpuAVX2() bool { return cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT) }
func cpuFMA() bool  { return cpuAVX2() && cpuid.CPU.Supports(cpuid.FMA3) }

// kernelRuns says whether this cgo build compiled kernel name with its SIMD
// path and this CPU runs that ISA: what bitcos-cpu.c's built mask means in
// ggml, which loads a CPU backend only where its ISA runs. avx2_clmul's
// PCLMULQDQ is the separate pclmul feature, as in bitcos-cpu.c.
func kernelRuns(name string) bool {
	switch name {
	case "generic", "tq2order", "tq2order_arm":
		return true
	case "avx2_tq2":
		return cpuFMA() && ckern.Compiled(ckern.AVX2TQ2)
	case "avx2_nopdep_tq2":
		return cpuFMA() && ckern.Compiled(ckern.AVX2NoPdepTQ2)
	case "avx512_tq2":
		return ckern512.UsableTQ2()
	case "avx2_clmul":
		return cpuFMA() && (ckern.ClmulCompiled(ckern.ClmulYMM) || ckern.ClmulCompiled(ckern.ClmulXMM))
	case "neon_tq2":
		return ckern.NeonSIMD() > 0
	}
	return false
}

// kernelIndex maps bitcos_kernel_name to the C enum.
func kernelIndex() map[string]int {
	idx := map[string]int{}
	for k := range ckern.KernelCount {
		idx[ckern.KernelName(k)] = k
	}
	return idx
}

// Features fills struct bitcos_cpu_features as patch 0002's bitcos-cpu.c
// does, for this cgo build restricted to build (BuildNative, BuildAVX2,
// BuildBaseline): the kernels compiled (and runnable here), PCLMULQDQ, the
// vendor and the family from cpuid, and the float order of the build's
// TQ2_0 kernel (buildTQ2Order). It panics without cgo (check
// ckern.Available).
func Features(build string) (ckern.Features, error) {
	var keep func(string) bool
	switch build {
	case BuildNative, "":
		keep = func(string) bool { return true }
	case BuildAVX2:
		keep = func(n string) bool { return slices.Contains(avx2Build, n) || slices.Contains(scalarKernels, n) }
	case BuildBaseline:
		keep = func(n string) bool { return slices.Contains(scalarKernels, n) }
	default:
		return ckern.Features{}, fmt.Errorf("unknown build %q (want %s)", build, strings.Join(Builds, ", "))
	}
	var f ckern.Features
	for name, k := range kernelIndex() {
		if keep(name) && kernelRuns(name) {
			f.Built |= 1 << k
		}
	}
	f.PCLMUL = cpuid.CPU.Supports(cpuid.CLMUL)
	// the VNNI kernel of TQ2_0 blocks: compiled in a native build of a CPU
	// that has AVX-512 VNNI (the AVX2 and baseline builds leave it out)
	f.TQ2_0VNNI = (build == BuildNative || build == "") && ckern512.UsableTQ2_0VNNI()
	f.Family = cpuid.CPU.Family
	f.TQ2Order = buildTQ2Order(build)
	switch cpuid.CPU.VendorID {
	case cpuid.Intel:
		f.Vendor = vendorIntel
	case cpuid.AMD:
		f.Vendor = vendorAMD
	case cpuid.Hygon:
		f.Vendor = vendorHygon
	default:
		f.Vendor = vendorOther
	}
	return f, nil
}

// BuiltNames lists the kernels of f.Built by name, in enum order.
func BuiltNames(f ckern.Features) []string {
	var names []string
	for k := range ckern.KernelCount {
		if f.Built>>k&1 != 0 {
			names = append(names, ckern.KernelName(k))
		}
	}
	return names
}

// buildTQ2Order is bitcos_build_tq2_order of a llama.cpp build of kind
// build on this machine, the order of its ggml TQ2_0 kernel: on aarch64 the
// ARM order (every aarch64 build has NEON); on x86 the x86 order for the
// native and AVX2 builds where this cgo build runs that kernel as ggml
// builds it (AVX2 with FMA: the yardstick tq2Kernel measures), else (the
// baseline build, a CPU without AVX2 or FMA, a compiler that ignored the
// shims' target pragmas) the generic kernel's exact order.
func buildTQ2Order(build string) int {
	switch {
	case runtime.GOARCH == "arm64":
		return orderTQ2ARM
	case build != BuildBaseline && cpuFMA() && ckern.TQ2CompiledGGML():
		return orderTQ2X86
	}
	return orderExact
}

// hasAVX2 says whether the build of features f has ggml's AVX2 TQ2_0 kernel
// (its TQ2_0 kernel computes in the x86 order).
func hasAVX2(f ckern.Features) bool { return f.TQ2Order == orderTQ2X86 }

// kernelNames lists bitcos_kernel_name in enum order.
func kernelNames() []string {
	var ns []string
	for k := range ckern.KernelCount {
		ns = append(ns, ckern.KernelName(k))
	}
	return ns
}

func cpuInfo() CPU {
	c := CPU{Brand: cpuid.CPU.BrandName, Vendor: cpuid.CPU.VendorString, Family: cpuid.CPU.Family, Model: cpuid.CPU.Model,
		LogicalCores: runtime.NumCPU(), L3Bytes: cpuid.CPU.Cache.L3}
	for _, f := range []struct {
		id   cpuid.FeatureID
		name string
	}{
		{cpuid.AVX2, "avx2"}, {cpuid.BMI2, "bmi2"}, {cpuid.FMA3, "fma"}, {cpuid.F16C, "f16c"}, {cpuid.CLMUL, "pclmulqdq"},
		{cpuid.VPCLMULQDQ, "vpclmulqdq"}, {cpuid.AVX512F, "avx512f"}, {cpuid.AVX512BW, "avx512bw"},
		{cpuid.AVX512VL, "avx512vl"}, {cpuid.AVX512VNNI, "avx512_vnni"}, {cpuid.ASIMD, "asimd"}, {cpuid.ASIMDDP, "asimddp"},
	} {
		if cpuid.CPU.Supports(f.id) {
			c.Features = append(c.Features, f.name)
		}
	}
	return c
}
