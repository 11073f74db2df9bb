package kernels

import (
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// The C enums of c/bitcos_select.h, by name (kernel indices come from
// bitcos_kernel_name, so a reordered enum cannot go unnoticed).
const (
	orderExact  = 0
	orderTQ2X86 = 1
	orderTQ2ARM = 2

	vendorOther = 0
	vendorIntel = 1
	vendorAMD   = 2
	vendorHygon = 3
)

var kernelNames = []string{"generic", "avx2", "avx2_nopdep", "avx512", "tq2order", "avx2_tq2",
	"avx2_nopdep_tq2", "avx512_tq2", "avx2_clmul", "tq2order_arm", "neon_tq2"}

func kernelIndex(t *testing.T) map[string]int {
	t.Helper()
	idx := map[string]int{}
	for k := range ckern.KernelCount {
		idx[ckern.KernelName(k)] = k
	}
	if len(idx) != len(kernelNames) || ckern.KernelCount != len(kernelNames) {
		t.Fatalf("C names %v kernels, want %v", idx, kernelNames)
	}
	for _, n := range kernelNames {
		if _, ok := idx[n]; !ok {
			t.Fatalf("C has no kernel named %q (%v)", n, idx)
		}
	}
	if ckern.KernelName(-1) != "" || ckern.KernelName(ckern.KernelCount) != "" || ckern.KernelOrder(ckern.KernelCount) != -1 {
		t.Fatal("out-of-range kernels have names or orders")
	}
	return idx
}

func builtMask(t *testing.T, idx map[string]int, names string) uint32 {
	var m uint32
	for n := range strings.FieldsSeq(names) {
		k, ok := idx[n]
		if !ok {
			t.Fatalf("no kernel %q", n)
		}
		m |= 1 << k
	}
	return m
}

// The builds of the table below: which kernel files compile with their SIMD
// paths under each set of compiler flags (the #if of each file).
const (
	buildAVX512 = "avx512_tq2 avx512 avx2_clmul avx2_tq2 avx2_nopdep_tq2 avx2 avx2_nopdep" // -march=native, Ice Lake / Zen 4
	buildAVX2   = "avx2_clmul avx2_tq2 avx2_nopdep_tq2 avx2 avx2_nopdep"                   // AVX2+BMI2+FMA+F16C (+ -mpclmul on the clmul file)
	buildNoClm  = "avx2_tq2 avx2_nopdep_tq2 avx2 avx2_nopdep"                              // the same without -mpclmul
	buildNoBMI2 = "avx2_nopdep_tq2 avx2_nopdep"                                            // AVX2+FMA+F16C, no BMI2
	buildNoFMA  = "avx512 avx2 avx2_nopdep"                                                // AVX-512 F+BW, BMI2, F16C, no FMA
	buildNoFMA2 = "avx2 avx2_nopdep"                                                       // AVX2, BMI2, F16C, no FMA
	buildARM    = "neon_tq2"                                                               // any aarch64 build
	buildNone   = ""                                                                       // x86-64 baseline, other CPUs
)

// TestSelect: every branch of bitcos_select (c/bitcos_select.c), each ISA
// combination a build can have, the slow-pdep CPUs, every forced name, an
// unknown one and an empty one.
func TestSelect(t *testing.T) {
	needCgo(t)
	idx := kernelIndex(t)
	str := func(s string) *string { return &s }
	intel := func(built string) ckern.Features {
		return ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorIntel, Family: 6}
	}
	amd := func(built string, family int) ckern.Features {
		return ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorAMD, Family: family}
	}
	noPclmul := intel(buildAVX2)
	noPclmul.PCLMUL = false
	hygon := amd(buildAVX2, 0x18)
	hygon.Vendor = vendorHygon
	arm := ckern.Features{Built: builtMask(t, idx, buildARM)}
	tests := []struct {
		name   string
		f      ckern.Features
		forced *string
		want   string
		order  int
		why    string // a substring of the reason
	}{
		{"Ice Lake native", intel(buildAVX512), nil, "avx512_tq2", orderTQ2X86, "default: AVX-512"},
		{"Zen 4 native", amd(buildAVX512, 0x19), nil, "avx512_tq2", orderTQ2X86, "default: AVX-512"},
		{"Zen 3 native", amd(buildAVX2, 0x19), nil, "avx2_clmul", orderTQ2X86, "PCLMULQDQ"},
		{"Haswell, AVX2 build", intel(buildAVX2), nil, "avx2_clmul", orderTQ2X86, "PCLMULQDQ"},
		{"AVX2 build without -mpclmul", intel(buildNoClm), nil, "avx2_tq2", orderTQ2X86, "without PCLMULQDQ"},
		{"clmul built, CPU without PCLMULQDQ", noPclmul, nil, "avx2_tq2", orderTQ2X86, "without PCLMULQDQ"},
		{"Zen 2 (AMD 0x17)", amd(buildAVX2, 0x17), nil, "avx2_nopdep_tq2", orderTQ2X86, "slow pdep"},
		{"Excavator (AMD 0x15)", amd(buildNoClm, 0x15), nil, "avx2_nopdep_tq2", orderTQ2X86, "slow pdep"},
		{"Hygon 0x18", hygon, nil, "avx2_nopdep_tq2", orderTQ2X86, "slow pdep"},
		{"AVX2 without BMI2", intel(buildNoBMI2), nil, "avx2_nopdep_tq2", orderTQ2X86, "without BMI2"},
		{"AVX-512 without FMA", intel(buildNoFMA), nil, "avx512", orderExact, "without FMA"},
		{"AVX-512 without FMA, Zen 2", amd(buildNoFMA, 0x17), nil, "avx512", orderExact, "without FMA"},
		{"AVX2 without FMA", intel(buildNoFMA2), nil, "avx2", orderExact, "without FMA"},
		{"AVX2 without FMA, Zen 2", amd(buildNoFMA2, 0x17), nil, "avx2_nopdep", orderExact, "no pdep"},
		{"aarch64", arm, nil, "neon_tq2", orderTQ2ARM, "NEON"},
		{"x86-64 baseline", intel(buildNone), nil, "generic", orderExact, "no SIMD"},
		{"other CPU", ckern.Features{}, nil, "generic", orderExact, "no SIMD"},

		{"empty forced name", intel(buildAVX512), str(""), "avx512_tq2", orderTQ2X86, "default: AVX-512"},
		{"unknown forced name", intel(buildAVX512), str("avx1024"), "avx512_tq2", orderTQ2X86, "unknown GGML_BITCOS_KERNEL ignored; default: AVX-512"},
		{"unknown forced name, aarch64", arm, str("AVX2"), "neon_tq2", orderTQ2ARM, "unknown GGML_BITCOS_KERNEL ignored; default: aarch64"},
		{"forced pdep kernel on Zen 2", amd(buildAVX2, 0x17), str("avx2_clmul"), "avx2_clmul", orderTQ2X86, "forced by"},
		{"forced avx2_clmul, CPU without PCLMULQDQ", noPclmul, str("avx2_clmul"), "tq2order", orderTQ2X86, "lacks PCLMULQDQ"},
		{"forced avx2_clmul, not built", intel(buildNoClm), str("avx2_clmul"), "tq2order", orderTQ2X86, "not compiled"},
		{"forced avx512_tq2 on AVX2", intel(buildAVX2), str("avx512_tq2"), "tq2order", orderTQ2X86, "not compiled"},
		{"forced avx512 on AVX2", intel(buildAVX2), str("avx512"), "generic", orderExact, "not compiled"},
		{"forced neon_tq2 on x86", intel(buildAVX512), str("neon_tq2"), "tq2order_arm", orderTQ2ARM, "not compiled"},
		{"forced tq2order on aarch64", arm, str("tq2order"), "tq2order", orderTQ2X86, "forced by"},
		{"forced avx2_tq2 on aarch64", arm, str("avx2_tq2"), "tq2order", orderTQ2X86, "not compiled"},
	}
	// every name forced on a build that has it runs as itself
	for _, n := range kernelNames {
		f := intel(buildAVX512)
		f.Built |= builtMask(t, idx, buildARM)
		tests = append(tests, struct {
			name   string
			f      ckern.Features
			forced *string
			want   string
			order  int
			why    string
		}{"forced " + n, f, str(n), n, ckern.KernelOrder(idx[n]), "forced by"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ckern.Select(tc.f, tc.forced)
			if c.Name != tc.want || c.Order != tc.order || !strings.Contains(c.Why, tc.why) {
				t.Errorf("got %s (order %d, %q), want %s (order %d, reason containing %q)", c.Name, c.Order, c.Why, tc.want, tc.order, tc.why)
			}
			if c.Name != ckern.KernelName(c.Kernel) || c.Order != ckern.KernelOrder(c.Kernel) {
				t.Errorf("descriptor %+v disagrees with kernel %d's name and order", c, c.Kernel)
			}
			if c.Forced != strings.HasPrefix(c.Why, "forced") {
				t.Errorf("forced = %v with reason %q", c.Forced, c.Why)
			}
			if c.Vendor != tc.f.Vendor {
				t.Errorf("choice records vendor %d, the CPU's is %d", c.Vendor, tc.f.Vendor)
			}
		})
	}
}

// TestSelectEveryBuild: on every subset of kernels built, with and without
// PCLMULQDQ, on a fast-pdep and a slow-pdep CPU, the default is the first
// kernel of the rule (c/bitcos_select.h) that runs, and never a pdep kernel
// where pdep is slow.
func TestSelectEveryBuild(t *testing.T) {
	needCgo(t)
	idx := kernelIndex(t)
	rule := []struct {
		name     string
		needFast bool // skipped where pdep is slow
	}{
		{"avx512_tq2", false}, {"avx2_clmul", true}, {"avx2_tq2", true}, {"avx2_nopdep_tq2", false},
		{"avx512", false}, {"avx2", true}, {"avx2_nopdep", false}, {"neon_tq2", false}, {"generic", false},
	}
	pdepKernels := map[string]bool{"avx2_clmul": true, "avx2_tq2": true, "avx2": true}
	n := 0
	for built := range uint32(1) << ckern.KernelCount {
		for _, pclmul := range []bool{false, true} {
			for _, cpu := range []struct{ vendor, family int }{{vendorIntel, 6}, {vendorAMD, 0x19}, {vendorAMD, 0x17}} {
				f := ckern.Features{Built: built, PCLMUL: pclmul, Vendor: cpu.vendor, Family: cpu.family}
				slow := ckern.SlowPdep(cpu.vendor, cpu.family)
				want := ""
				for _, r := range rule {
					k := idx[r.name]
					runs := r.name == "generic" || built>>k&1 != 0 && (r.name != "avx2_clmul" || pclmul)
					if runs && !(slow && r.needFast) {
						want = r.name
						break
					}
				}
				c := ckern.Select(f, nil)
				if c.Name != want || (slow && pdepKernels[c.Name]) || !strings.HasPrefix(c.Why, "default: ") {
					t.Fatalf("%+v: got %s (%q), want %s", f, c.Name, c.Why, want)
				}
				n++
			}
		}
	}
	t.Logf("%d feature sets checked", n)
}

// TestSlowPdepTwin: format.SlowPdep (which format's codec uses) and
// bitcos_slow_pdep (which picks llama.cpp's kernel) are one rule.
func TestSlowPdepTwin(t *testing.T) {
	needCgo(t)
	vendors := []struct {
		c   int
		gov cpuid.Vendor
	}{
		{vendorOther, cpuid.VendorUnknown}, {vendorIntel, cpuid.Intel}, {vendorAMD, cpuid.AMD}, {vendorHygon, cpuid.Hygon},
		{vendorOther, cpuid.VIA}, {vendorOther, cpuid.KVM},
	}
	slow := 0
	for _, v := range vendors {
		for family := range 0x40 {
			c, g := ckern.SlowPdep(v.c, family), format.SlowPdep(v.gov, family)
			if c != g {
				t.Fatalf("vendor %v family %#x: C says slow=%v, Go %v", v.gov, family, c, g)
			}
			if c {
				slow++
			}
		}
	}
	// AMD and Hygon below 0x19; Zen 2 slow, Zen 3 fast
	if slow != 2*0x19 || !format.SlowPdep(cpuid.AMD, 0x17) || format.SlowPdep(cpuid.AMD, 0x19) || format.SlowPdep(cpuid.Intel, 0x17) {
		t.Fatalf("the rule is not AMD/Hygon family < 0x19 (%d slow)", slow)
	}
}

// TestSelectLayout: every branch of bitcos_select_layout
// (c/bitcos_select.h), with kernels as bitcos_select returns them. fp16 and
// f32 scales take the same layout (the function has no scale argument).
func TestSelectLayout(t *testing.T) {
	needCgo(t)
	idx := kernelIndex(t)
	str := func(s string) *string { return &s }
	kernel := func(built string, forced *string) ckern.Choice {
		return ckern.Select(ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorIntel, Family: 6}, forced)
	}
	amd := func(built string, family int) ckern.Choice {
		return ckern.Select(ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorAMD, Family: family}, nil)
	}
	vnni := func(vendor int, built string, forced *string) ckern.Choice {
		return ckern.Select(ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendor, Family: 0x1a, TQ2_0VNNI: true}, forced)
	}
	zen2 := amd(buildAVX2, 0x17)
	other := ckern.Select(ckern.Features{Built: builtMask(t, idx, buildAVX512), PCLMUL: true, Vendor: vendorOther}, nil)
	tests := []struct {
		name   string
		k      ckern.Choice
		forced *string
		want   string
		why    string
	}{
		{"AVX-512, Intel", kernel(buildAVX512, nil), nil, "native", "default: avx512_tq2"},
		{"AVX-512, AMD Zen 5", amd(buildAVX512, 0x1a), nil, "native", "default: avx512_tq2"},
		{"AVX-512, other vendor", other, nil, "native", "default: avx512_tq2"},
		{"AVX-512, AMD, forced tq2_0", amd(buildAVX512, 0x19), str("tq2_0"), "tq2_0", "forced by GGML_BITCOS_LAYOUT"},
		{"AVX-512 VNNI, AMD", vnni(vendorAMD, buildAVX512, nil), nil, "tq2_0", "default: on AMD, TQ2_0 blocks with AVX-512 VNNI"},
		{"AVX-512 VNNI, AMD, forced native", vnni(vendorAMD, buildAVX512, nil), str("native"), "native", "forced by GGML_BITCOS_LAYOUT"},
		{"AVX-512 VNNI, AMD, forced kernel", vnni(vendorAMD, buildAVX512, str("avx512_tq2")), nil, "native", "GGML_BITCOS_KERNEL forces"},
		{"AVX-512 VNNI, Intel", vnni(vendorIntel, buildAVX512, nil), nil, "native", "default: avx512_tq2"},
		{"AVX-512 VNNI, other vendor", vnni(vendorOther, buildAVX512, nil), nil, "native", "default: avx512_tq2"},
		{"AVX2 build with VNNI flag, AMD", vnni(vendorAMD, buildAVX2, nil), nil, "tq2_0", "without AVX-512"},
		{"AVX2 (clmul)", kernel(buildAVX2, nil), nil, "tq2_0", "without AVX-512"},
		{"AVX2 without clmul", kernel(buildNoClm, nil), nil, "tq2_0", "without AVX-512"},
		{"Zen 2", zen2, nil, "tq2_0", "without AVX-512"},
		{"AVX2 without FMA", kernel(buildNoFMA2, nil), nil, "tq2_0", "without AVX-512"},
		{"aarch64", kernel(buildARM, nil), nil, "tq2_0", "neon_tq2"},
		{"x86-64 baseline", kernel(buildNone, nil), nil, "tq2_0", "no SIMD"},
		{"forced tq2_0 on AVX-512", kernel(buildAVX512, nil), str("tq2_0"), "tq2_0", "forced by GGML_BITCOS_LAYOUT"},
		{"forced native on AVX2", kernel(buildAVX2, nil), str("native"), "native", "forced by GGML_BITCOS_LAYOUT"},
		{"forced native on aarch64", kernel(buildARM, nil), str("native"), "native", "forced by GGML_BITCOS_LAYOUT"},
		{"empty forced layout", kernel(buildAVX2, nil), str(""), "tq2_0", "default:"},
		{"unknown forced layout", kernel(buildAVX512, nil), str("TQ2_0"), "native", "unknown GGML_BITCOS_LAYOUT ignored; default: avx512_tq2"},
		{"forced kernel on AVX2", kernel(buildAVX2, str("avx2_clmul")), nil, "native", "GGML_BITCOS_KERNEL forces"},
		{"forced scalar kernel", kernel(buildAVX512, str("tq2order")), nil, "native", "GGML_BITCOS_KERNEL forces"},
		{"forced kernel not built", kernel(buildAVX2, str("avx512_tq2")), nil, "native", "GGML_BITCOS_KERNEL forces"},
		{"forced kernel and layout", kernel(buildAVX512, str("avx512_tq2")), str("tq2_0"), "tq2_0", "forced by GGML_BITCOS_LAYOUT"},
		{"unknown forced kernel", kernel(buildAVX2, str("avx1024")), nil, "tq2_0", "default:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ckern.SelectLayout(tc.k, tc.forced)
			if c.Name != tc.want || !strings.Contains(c.Why, tc.why) || c.Name != ckern.LayoutName(c.Layout) {
				t.Errorf("kernel %s (forced %v): got %s (%d, %q), want %s (reason containing %q)", tc.k.Name, tc.k.Forced, c.Name, c.Layout, c.Why, tc.want, tc.why)
			}
		})
	}
	if ckern.LayoutName(-1) != "" || ckern.LayoutName(2) != "" || ckern.LayoutName(0) != "native" || ckern.LayoutName(1) != "tq2_0" {
		t.Fatal("layout names are not native, tq2_0")
	}
}
