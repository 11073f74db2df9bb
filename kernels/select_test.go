package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// kernelNames: exactly the kernels a default can choose (--kernel
// accepts these and no other).
var kernelNames = []string{"generic", "tq2order", "avx2_tq2",
	"avx2_nopdep_tq2", "avx512_tq2", "avx2_clmul", "tq2order_arm", "neon_tq2"}

// retiredNames: the exact-order SIMD kernels no default ran, now unknown
// names.
var retiredNames = []string{"avx2", "avx2_nopdep", "avx512", "avx512_twin"}

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
// paths under each set of compiler flags (the #if of each file). Every x86
// build with AVX2 has ggml's TQ2_0 kernel in the x86 order (tq2_order
// orderTQ2X86), aarch64 builds in the ARM order, the others the exact one.
const (
	buildAVX512 = "avx512_tq2 avx2_clmul avx2_tq2 avx2_nopdep_tq2" // -march=native, Ice Lake / Zen 4
	buildAVX2   = "avx2_clmul avx2_tq2 avx2_nopdep_tq2"            // AVX2+BMI2+FMA+F16C (+ -mpclmul on the clmul file)
	buildNoClm  = "avx2_tq2 avx2_nopdep_tq2"                       // the same without -mpclmul
	buildNoBMI2 = "avx2_nopdep_tq2"                                // AVX2+FMA+F16C, no BMI2
	buildNoF16C = ""                                               // AVX2 (+FMA, BMI2), no F16C (GGML_F16C=OFF): no SIMD kernel
	buildARM    = "neon_tq2"                                       // any aarch64 build
	buildNone   = ""                                               // x86-64 baseline, other CPUs
)

// TestSelect: every branch of bitcos_select (c/bitcos_select.c), each ISA
// combination a build can have, the slow-pdep CPUs, every forced name, an
// unknown one and an empty one.
func TestSelect(t *testing.T) {
	needCgo(t)
	idx := kernelIndex(t)
	str := func(s string) *string { return &s }
	intel := func(built string) ckern.Features {
		return ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorIntel, Family: 6, TQ2Order: orderTQ2X86}
	}
	amd := func(built string, family int) ckern.Features {
		return ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorAMD, Family: family, TQ2Order: orderTQ2X86}
	}
	noPclmul := intel(buildAVX2)
	noPclmul.PCLMUL = false
	hygon := amd(buildAVX2, 0x18)
	hygon.Vendor = vendorHygon
	arm := ckern.Features{Built: builtMask(t, idx, buildARM), TQ2Order: orderTQ2ARM}
	armNoNeon := ckern.Features{TQ2Order: orderTQ2ARM} // a NEON build whose kernel files lost their SIMD paths
	baseline := intel(buildNone)
	baseline.TQ2Order = orderExact // x86-64 without AVX2: ggml's generic TQ2_0 kernel
	unset := intel(buildNone)
	unset.TQ2Order = orderExact // a caller that leaves tq2_order zero
	badOrder := intel(buildNone)
	badOrder.TQ2Order = 7 // not an enum bitcos_order: the generic kernel
	type selectCase struct {
		name   string
		f      ckern.Features
		forced *string
		want   string
		order  int
		why    string // a substring of the reason
	}
	tests := []selectCase{
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
		{"AVX2 without F16C (GGML_F16C=OFF)", intel(buildNoF16C), nil, "tq2order", orderTQ2X86, "x86 float order of this build's TQ2_0 kernel"},
		{"AVX2 without F16C, Zen 2", amd(buildNoF16C, 0x17), nil, "tq2order", orderTQ2X86, "x86 float order of this build's TQ2_0 kernel"},
		{"aarch64", arm, nil, "neon_tq2", orderTQ2ARM, "NEON"},
		{"aarch64, NEON kernel not compiled", armNoNeon, nil, "tq2order_arm", orderTQ2ARM, "NEON float order of this build's TQ2_0 kernel"},
		{"x86-64 baseline", baseline, nil, "generic", orderExact, "exact order of this build's (generic) TQ2_0 kernel"},
		{"tq2_order left unset", unset, nil, "generic", orderExact, "no SIMD"},
		{"tq2_order out of range", badOrder, nil, "generic", orderExact, "no SIMD"},
		{"other CPU", ckern.Features{}, nil, "generic", orderExact, "no SIMD"},
		{"unknown forced name, no SIMD kernel", intel(buildNoF16C), str("avx1024"), "tq2order", orderTQ2X86, "unknown --kernel ignored; default: no SIMD"},

		{"empty forced name", intel(buildAVX512), str(""), "avx512_tq2", orderTQ2X86, "default: AVX-512"},
		{"unknown forced name", intel(buildAVX512), str("avx1024"), "avx512_tq2", orderTQ2X86, "unknown --kernel ignored; default: AVX-512"},
		{"unknown forced name, aarch64", arm, str("AVX2"), "neon_tq2", orderTQ2ARM, "unknown --kernel ignored; default: aarch64"},
		{"forced pdep kernel on Zen 2", amd(buildAVX2, 0x17), str("avx2_clmul"), "avx2_clmul", orderTQ2X86, "forced by"},
		{"forced avx2_clmul, CPU without PCLMULQDQ", noPclmul, str("avx2_clmul"), "tq2order", orderTQ2X86, "lacks PCLMULQDQ"},
		{"forced avx2_clmul, not built", intel(buildNoClm), str("avx2_clmul"), "tq2order", orderTQ2X86, "not compiled"},
		{"forced avx512_tq2 on AVX2", intel(buildAVX2), str("avx512_tq2"), "tq2order", orderTQ2X86, "not compiled"},
		{"forced neon_tq2 on x86", intel(buildAVX512), str("neon_tq2"), "tq2order_arm", orderTQ2ARM, "not compiled"},
		{"forced tq2order on aarch64", arm, str("tq2order"), "tq2order", orderTQ2X86, "forced by"},
		{"forced avx2_tq2 on aarch64", arm, str("avx2_tq2"), "tq2order", orderTQ2X86, "not compiled"},
	}
	// every name forced on a build that has it runs as itself
	for _, n := range kernelNames {
		f := intel(buildAVX512)
		f.Built |= builtMask(t, idx, buildARM)
		tests = append(tests, selectCase{"forced " + n, f, str(n), n, ckern.KernelOrder(idx[n]), "forced by"})
	}
	// a retired kernel's name is unknown: ignored, the default runs
	for _, n := range retiredNames {
		for _, b := range []struct {
			f          ckern.Features
			want       string
			order      int
			defaultWhy string
		}{
			{intel(buildAVX512), "avx512_tq2", orderTQ2X86, "AVX-512"},
			{amd(buildAVX2, 0x17), "avx2_nopdep_tq2", orderTQ2X86, "slow pdep"},
			{intel(buildNoF16C), "tq2order", orderTQ2X86, "no SIMD"},
			{baseline, "generic", orderExact, "no SIMD"},
		} {
			tests = append(tests, selectCase{"retired " + n + ", default " + b.want, b.f, str(n), b.want, b.order, "unknown --kernel ignored; default: " + b.defaultWhy})
		}
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
// PCLMULQDQ, on a fast-pdep and a slow-pdep CPU, for each order of the
// build's TQ2_0 kernel, the default is the first kernel of the rule
// (c/bitcos_select.h) that runs, else the scalar kernel of that order, and
// never a pdep kernel where pdep is slow.
func TestSelectEveryBuild(t *testing.T) {
	needCgo(t)
	idx := kernelIndex(t)
	rule := []struct {
		name     string
		needFast bool // skipped where pdep is slow
	}{
		{"avx512_tq2", false}, {"avx2_clmul", true}, {"avx2_tq2", true}, {"avx2_nopdep_tq2", false}, {"neon_tq2", false},
	}
	scalar := map[int]string{orderExact: "generic", orderTQ2X86: "tq2order", orderTQ2ARM: "tq2order_arm"}
	pdepKernels := map[string]bool{"avx2_clmul": true, "avx2_tq2": true}
	n := 0
	for built := range uint32(1) << ckern.KernelCount {
		for _, pclmul := range []bool{false, true} {
			for _, cpu := range []struct{ vendor, family int }{{vendorIntel, 6}, {vendorAMD, 0x19}, {vendorAMD, 0x17}} {
				for _, order := range []int{orderExact, orderTQ2X86, orderTQ2ARM} {
					f := ckern.Features{Built: built, PCLMUL: pclmul, Vendor: cpu.vendor, Family: cpu.family, TQ2Order: order}
					slow := ckern.SlowPdep(cpu.vendor, cpu.family)
					want := scalar[order]
					for _, r := range rule {
						k := idx[r.name]
						runs := built>>k&1 != 0 && (r.name != "avx2_clmul" || pclmul)
						if runs && !(slow && r.needFast) {
							want = r.name
							break
						}
					}
					c := ckern.Select(f, nil)
					if c.Name != want || (slow && pdepKernels[c.Name]) || !strings.HasPrefix(c.Why, "default: ") {
						t.Fatalf("%+v: got %s (%q), want %s", f, c.Name, c.Why, want)
					}
					// the build's TQ2_0 order whenever the build is
					// consistent (x86 SIMD kernels only with the x86 order,
					// neon_tq2 only with the ARM order)
					x86 := built &^ (1<<idx["neon_tq2"] | 1<<idx["generic"] | 1<<idx["tq2order"] | 1<<idx["tq2order_arm"])
					neon := built & (1 << idx["neon_tq2"])
					consistent := (x86 == 0 || order == orderTQ2X86) && (neon == 0 || order == orderTQ2ARM)
					if consistent && c.Order != order {
						t.Fatalf("%+v: got %s in order %d, the build's TQ2_0 kernel computes in order %d", f, c.Name, c.Order, order)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d feature sets checked", n)
}

// TestBuildTQ2Order: bitcos_build_tq2_order, which fills tq2_order in
// llama.cpp, follows the macros of ggml's TQ2_0 kernels: the x86 order with
// __AVX2__ (ahead of everything else), the ARM order with __ARM_NEON, the
// exact order otherwise. Through the cgo shim (this package's flags), then
// compiled by gcc under each set of macros (defined by hand where gcc
// cannot target the ISA).
func TestBuildTQ2Order(t *testing.T) {
	needCgo(t)
	want := orderExact // the shims build for the baseline ISA on amd64
	if runtime.GOARCH == "arm64" {
		want = orderTQ2ARM
	}
	if got := ckern.BuildTQ2Order(); got != want {
		t.Errorf("cgo build: bitcos_build_tq2_order() = %d, want %d", got, want)
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the gcc builds below target x86-64")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	src, err := filepath.Abs("c")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "order.c")
	if err := os.WriteFile(prog, []byte("#include <stdio.h>\n#include \"bitcos_select.h\"\nint main(void) { printf(\"%d\", bitcos_build_tq2_order()); return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags []string
		want  int
		cpu   bool // this CPU runs the build
	}{
		{nil, orderExact, true},
		{[]string{"-mavx2"}, orderTQ2X86, cpuid.CPU.Supports(cpuid.AVX2)},
		{[]string{"-mavx2", "-mfma"}, orderTQ2X86, cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)},
		{[]string{"-mavx512f"}, orderTQ2X86, cpuid.CPU.Supports(cpuid.AVX512F)}, // AVX-512 F implies AVX2
		{[]string{"-mavx", "-mfma", "-mf16c"}, orderExact, cpuid.CPU.Supports(cpuid.AVX, cpuid.FMA3, cpuid.F16C)},
		{[]string{"-D__ARM_NEON=1"}, orderTQ2ARM, true},
		{[]string{"-mavx2", "-D__ARM_NEON=1"}, orderTQ2X86, cpuid.CPU.Supports(cpuid.AVX2)},
		{[]string{"-D__riscv_v=1000000"}, orderExact, true}, // a gap: ggml's RVV order has no BITCOS kernel
	} {
		if !tc.cpu {
			t.Logf("gcc %v: not run, the CPU lacks the ISA", tc.flags)
			continue
		}
		bin := filepath.Join(dir, "order")
		args := append([]string{"-std=c11", "-O2", "-Wall", "-Werror", "-I", src, "-o", bin, prog}, tc.flags...)
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", tc.flags, err, b)
		}
		out, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatalf("%v: %v", tc.flags, err)
		}
		if string(out) != string(rune('0'+tc.want)) {
			t.Errorf("gcc %v: bitcos_build_tq2_order() = %s, want %d", tc.flags, out, tc.want)
		}
	}
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
		return ckern.Select(ckern.Features{Built: builtMask(t, idx, built), PCLMUL: true, Vendor: vendorIntel, Family: 6, TQ2Order: orderTQ2X86}, forced)
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
		{"AVX-512 VNNI, AMD, forced kernel", vnni(vendorAMD, buildAVX512, str("avx512_tq2")), nil, "native", "--kernel forces"},
		{"AVX-512 VNNI, Intel", vnni(vendorIntel, buildAVX512, nil), nil, "native", "default: avx512_tq2"},
		{"AVX-512 VNNI, other vendor", vnni(vendorOther, buildAVX512, nil), nil, "native", "default: avx512_tq2"},
		{"AVX2 build with VNNI flag, AMD", vnni(vendorAMD, buildAVX2, nil), nil, "tq2_0", "without AVX-512"},
		{"AVX2 (clmul)", kernel(buildAVX2, nil), nil, "tq2_0", "without AVX-512"},
		{"AVX2 without clmul", kernel(buildNoClm, nil), nil, "tq2_0", "without AVX-512"},
		{"Zen 2", zen2, nil, "tq2_0", "without AVX-512"},
		{"AVX2 without F16C", kernel(buildNoF16C, nil), nil, "tq2_0", "no SIMD"},
		{"AVX2 without F16C, exact-order caller", ckern.Select(ckern.Features{Vendor: vendorIntel, Family: 6}, nil), nil, "tq2_0", "no SIMD"},
		{"aarch64 without the NEON kernel", ckern.Select(ckern.Features{TQ2Order: orderTQ2ARM}, nil), nil, "tq2_0", "no SIMD"},
		{"aarch64", kernel(buildARM, nil), nil, "tq2_0", "neon_tq2"},
		{"x86-64 baseline", kernel(buildNone, nil), nil, "tq2_0", "no SIMD"},
		{"forced tq2_0 on AVX-512", kernel(buildAVX512, nil), str("tq2_0"), "tq2_0", "forced by GGML_BITCOS_LAYOUT"},
		{"forced native on AVX2", kernel(buildAVX2, nil), str("native"), "native", "forced by GGML_BITCOS_LAYOUT"},
		{"forced native on aarch64", kernel(buildARM, nil), str("native"), "native", "forced by GGML_BITCOS_LAYOUT"},
		{"empty forced layout", kernel(buildAVX2, nil), str(""), "tq2_0", "default:"},
		{"unknown forced layout", kernel(buildAVX512, nil), str("TQ2_0"), "native", "unknown GGML_BITCOS_LAYOUT ignored; default: avx512_tq2"},
		{"forced kernel on AVX2", kernel(buildAVX2, str("avx2_clmul")), nil, "native", "--kernel forces"},
		{"forced scalar kernel", kernel(buildAVX512, str("tq2order")), nil, "native", "--kernel forces"},
		{"forced kernel not built", kernel(buildAVX2, str("avx512_tq2")), nil, "native", "--kernel forces"},
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
