package ckern

// The types and constants both builds declare (the C kernels' under cgo,
// the stubs' without it): one definition here, with no C in it. What comes
// from a C header (ClmulQPBlock, KernelCount, the ARMPath values) stays in
// each build's file.

// Variant selects a C kernel.
type Variant int

// The BITCOS variants of this package, then the TQ2_0 yardsticks.
const (
	Generic Variant = iota
	TQ2Generic
	TQ2AVX2
	TQ2AVX2Exact
	// TQ2Order is BITCOS in the float order of ggml's x86 TQ2_0 kernel
	// (c/bitcos_tq2order.c), the perplexity-parity mode.
	TQ2Order
	// AVX2TQ2 is the AVX2 kernel in TQ2Order's float order
	// (c/bitcos_avx2_tq2.c): parity at speed.
	AVX2TQ2
	// AVX2NoPdepTQ2 is the no-pdep kernel in TQ2Order's float order
	// (c/bitcos_nopdep.c): parity where pdep is slow.
	AVX2NoPdepTQ2
	// TQ2AVX2GGML is the TQ2AVX2 yardstick built as ggml builds its TQ2_0
	// kernel (-O3, FMA, contraction: tq2_0_ggml.c), for TQ2GEMV.
	TQ2AVX2GGML
)

// ClmulBuild selects a build of c/bitcos_avx2_clmul.c.
type ClmulBuild int

// The builds: with VPCLMULQDQ (ymm squaring), with PCLMULQDQ only (xmm), and
// for the baseline ISA (its scalar permutation; the kernel falls back to
// tq2order).
const (
	ClmulYMM ClmulBuild = iota
	ClmulXMM
	ClmulGeneric
)

// Kernels of a converted weight's blocks for TQ2_0BlocksGEMV.
const (
	BlocksAVX2     = 0 // bitcos_tq2_0_avx2.c, AVX2 build
	BlocksAVX2VNNI = 1 // its AVX-VNNI build
	BlocksRef      = 2 // the scalar reference (bitcos_layout.c)
)

// GemmBuild selects a build of c/bitcos_gemm.c in this package (the AVX-512
// builds are in ../ckern512).
type GemmBuild int

// The builds: scalar (baseline ISA), AVX2 (vpmaddubsw), AVX2 with AVX-VNNI.
const (
	GemmGeneric GemmBuild = iota
	GemmAVX2
	GemmAVX2VNNI
)

// The values of bitcos_gemm_isa (c/bitcos_gemm.h): the path a build compiled.
const (
	GemmISAScalar = iota
	GemmISAAVX2
	GemmISAAVX2VNNI
	GemmISAAVX512
	GemmISAAVX512VNNI
)

// Choice is bitcos_select's answer (c/bitcos_select.h).
type Choice struct {
	Kernel, Order int
	Name, Why     string
	Forced        bool // advise --kernel named the kernel
	Vendor        int  // the CPU's vendor (enum bitcos_vendor), as bitcos_select recorded it
	TQ2_0VNNI     bool // the build has bitcos_tq2_0_vnni.c's VNNI path (features' tq2_0_vnni)
}

// LayoutChoice is bitcos_select_layout's answer.
type LayoutChoice struct {
	Layout    int
	Name, Why string
}

// Features mirrors struct bitcos_cpu_features.
type Features struct {
	Built          uint32 // bit k: kernel k compiled with its SIMD path
	PCLMUL         bool
	Vendor, Family int
	TQ2_0VNNI      bool // bitcos_tq2_0_vnni.c compiled with AVX-512 VNNI
	TQ2Order       int  // enum bitcos_order of the build's ggml TQ2_0 kernel (bitcos_build_tq2_order)
}

// DeviceCaps mirrors struct bitcos_device_caps.
type DeviceCaps struct {
	Native, TQ2_0, Q2_0 bool
}
