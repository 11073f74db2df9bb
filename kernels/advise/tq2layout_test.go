package advise

import (
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
)

// TestTQ2LayoutKernel: the tq2_0 layout runs the VNNI kernel of TQ2_0 blocks
// exactly where the rule's choice carries tq2_0_vnni (the features' flag,
// set for a native build on a CPU with AVX-512 VNNI only), else ggml's
// kernel, the TQ2_0 file's; and the VNNI build is not lost to a dropped
// pragma on a CPU that has VNNI.
func TestTQ2LayoutKernel(t *testing.T) {
	needCgo(t)
	vnniCPU := ckern512.CPUHasTQ2_0VNNI()
	if vnniCPU && ckern.GCC() && !ckern512.CompiledTQ2_0VNNI() {
		t.Fatal("the CPU has AVX-512 VNNI but bitcos_tq2_0_vnni.c compiled as its scalar build (target pragma lost)")
	}
	for _, tc := range []struct {
		build    string
		wantVNNI bool
	}{
		{BuildNative, ckern512.UsableTQ2_0VNNI()},
		{BuildAVX2, false},
		{BuildBaseline, false},
	} {
		t.Run(tc.build, func(t *testing.T) {
			f, err := Features(tc.build)
			if err != nil {
				t.Fatal(err)
			}
			file := tq2Kernel(hasAVX2(f))
			for _, forced := range append([]string{""}, kernelNames()...) {
				r := RuleFor(f, forced)
				if r.TQ2_0VNNI != tc.wantVNNI || f.TQ2_0VNNI != tc.wantVNNI {
					t.Fatalf("forced %q: features tq2_0_vnni %v, rule %v, want %v", forced, f.TQ2_0VNNI, r.TQ2_0VNNI, tc.wantVNNI)
				}
				layout, err := tq2LayoutKernel(r, file, false, hasAVX2(f))
				if err != nil {
					t.Fatal(err)
				}
				// f32 blocks: the VNNI kernel, else in x86 order the AVX2 one
				// (an AVX2 build), else the scalar reference of the order
				l32, err := tq2LayoutKernel(r, file, true, hasAVX2(f))
				if err != nil {
					t.Fatal(err)
				}
				want32 := "tq2_0_ref"
				switch {
				case tc.wantVNNI && r.Order == orderTQ2X86:
					want32 = "tq2_0_vnni"
				case r.Order == orderTQ2X86 && hasAVX2(f) && cpuFMA():
					want32 = "tq2_0_avx2"
				}
				if l32.Name != want32 || !l32.TQ2 || !l32.F32 || l32.order != r.Order {
					t.Errorf("forced %q: f32 tq2_0 layout runs %s (order %d, F32 %v), want %s (order %d)", forced, l32.Name, l32.order, l32.F32, want32, r.Order)
				}
				if want := map[bool]string{true: "tq2_0_vnni", false: file.Name}[tc.wantVNNI]; layout.Name != want || !layout.TQ2 {
					t.Errorf("forced %q: tq2_0 layout runs %s (TQ2 %v), want %s", forced, layout.Name, layout.TQ2, want)
				}
				if tc.wantVNNI && layout.order != orderTQ2X86 {
					t.Errorf("VNNI kernel: float order %d, want TQ2_0's x86 one", layout.order)
				}
			}
		})
	}
	if !ckern512.UsableTQ2_0VNNI() {
		if _, err := tq2LayoutKernel(Rule{TQ2_0VNNI: true, Order: orderTQ2X86}, tq2Kernel(true), false, true); err == nil {
			t.Error("a VNNI layout kernel where it cannot run")
		}
		t.Logf("no AVX-512 VNNI TQ2_0 kernel here (CPU %v, compiled %v): only ggml's kernel checked", vnniCPU, ckern512.CompiledTQ2_0VNNI())
	}
}

// TestTQ2LayoutMatchesFile: on advise's own generated matrices (every row,
// several shapes, zero densities and both scale kinds), the tq2_0 layout's
// VNNI kernel returns the float32 bits of the TQ2_0 file's kernel (ggml's
// -O3 FMA build, TQ2_0's x86 float order), each passes the pre-timing check
// against the Go reference, and sameBits fails when one row differs.
func TestTQ2LayoutMatchesFile(t *testing.T) {
	needCgo(t)
	if !ckern512.UsableTQ2_0VNNI() {
		t.Skip("no AVX-512 VNNI TQ2_0 kernel on this CPU or build: the tq2_0 layout runs the file's kernel itself")
	}
	file := tq2Kernel(true)
	if file.order != orderTQ2X86 {
		t.Fatalf("a CPU with AVX-512 VNNI and the TQ2_0 file's kernel not in TQ2_0's x86 order (%s)", file.Build)
	}
	layout, err := tq2LayoutKernel(Rule{TQ2_0VNNI: true, Order: orderTQ2X86}, file, false, true)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 66))
	rows := 0
	for _, s := range []Shape{{256, 9}, {2560, 64}, {6912, 16}, {768, 130}} {
		for _, z := range []float64{0, 0.42, 0.9, 1} {
			for _, fp16 := range []bool{true, false} {
				m, err := genMatrix(rng, s, z, fp16)
				if err != nil {
					t.Fatal(err)
				}
				y := newAct(rng, s.K)
				for _, k := range []kernel{layout, file} {
					if err := check(k, m, y); err != nil {
						t.Fatalf("%v z=%v fp16 %v: %v", s, z, fp16, err)
					}
				}
				if err := sameBits(layout, file, m, y); err != nil {
					t.Fatalf("%v z=%v fp16 %v: %v", s, z, fp16, err)
				}
				rows += s.Rows
			}
		}
	}
	t.Logf("%d rows bit-identical, %s and %s", rows, layout.Name, file.Name)

	// sameBits is not vacuous: a kernel off on the last row only, a kernel
	// of BITCOS rows, one without a Go reference
	m, err := genMatrix(rng, Shape{512, 40}, 0.42, true)
	if err != nil {
		t.Fatal(err)
	}
	y := newAct(rng, 512)
	lastOff := layout
	lastOff.run = func(m *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
		layout.run(m, r0, r1, y, out)
		if r1 == m.Rows {
			out[r1-1] += 1e-3
		}
	}
	notTQ2 := file
	notTQ2.TQ2 = false
	noOrder := file
	noOrder.order = orderNone
	for _, tc := range []struct {
		name string
		a, b kernel
		want string
	}{
		{"last row off", lastOff, file, "row 39"},
		{"other layout", layout, notTQ2, "not a kernel of blocks and its yardstick"},
		{"no reference order", noOrder, noOrder, "not a kernel of blocks and its yardstick"},
	} {
		if err := sameBits(tc.a, tc.b, m, y); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestFromRounds: the ratios of the measured GEMV, per round: the tq2_0
// layout's time over the native layout's (the verdict's), the file's over
// each layout's; the last kernel is the file's.
func TestFromRounds(t *testing.T) {
	for _, tc := range []struct {
		name             string
		ms               [][]float64
		ratios, nat, tq2 []float64
		winner           string
	}{
		{"tq2_0 layout is the file's kernel", [][]float64{{10, 8, 10}, {12, 12, 9}}, []float64{1.2, 1.5, 0.9}, []float64{1.2, 1.5, 0.9}, []float64{1, 1, 1}, LayoutNative},
		{"VNNI layout wins", [][]float64{{10, 10, 10}, {8, 5, 9}, {12, 10, 9}}, []float64{0.8, 0.5, 0.9}, []float64{1.2, 1, 0.9}, []float64{1.5, 2, 1}, LayoutTQ2},
		{"native wins, both beat the file", [][]float64{{4, 4, 5}, {5, 6, 5}, {8, 9, 10}}, []float64{1.25, 1.5, 1}, []float64{2, 2.25, 2}, []float64{1.6, 1.5, 2}, LayoutNative},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fromRounds(tc.ms)
			for i := range tc.ratios {
				if !near(m.Ratios[i], tc.ratios[i]) {
					t.Errorf("ratios %v, want %v", m.Ratios, tc.ratios)
					break
				}
			}
			if !near(m.NativeVsFile.Median, median(tc.nat)) || !near(m.TQ2VsFile.Median, median(tc.tq2)) || m.NativeVsFile.N != len(tc.nat) ||
				!near(m.NativeVsFile.Min, slices.Min(tc.nat)) || !near(m.TQ2VsFile.Max, slices.Max(tc.tq2)) {
				t.Errorf("vs file: native %+v, tq2_0 %+v; want medians %v, %v", m.NativeVsFile, m.TQ2VsFile, median(tc.nat), median(tc.tq2))
			}
			if m.BitcosMs != Summarize(tc.ms[0]) || m.TQ2Ms != Summarize(tc.ms[1]) || m.FileMs != Summarize(tc.ms[len(tc.ms)-1]) {
				t.Errorf("pass summaries %+v %+v %+v", m.BitcosMs, m.TQ2Ms, m.FileMs)
			}
			if m.Verdict != Decide(m.Ratios) || m.Verdict.Winner != tc.winner {
				t.Errorf("verdict %+v, want winner %s", m.Verdict, tc.winner)
			}
		})
	}
}

// TestMeasureGEMVOrder: one warm-up pass of each kernel, then rounds in
// order and in reverse order alternately, every kernel once per round.
func TestMeasureGEMVOrder(t *testing.T) {
	stack := []*matrix{{Shape: Shape{256, 64}}}
	for _, n := range []int{2, 3} {
		var log []string
		fwd, rev := "", ""
		ks := make([]kernel, n)
		for i := range ks {
			name := string(rune('a' + i))
			fwd, rev = fwd+name, name+rev
			ks[i] = kernel{Name: name, run: func(_ *matrix, r0, _ int, _ unsafe.Pointer, _ []float32) {
				if r0 == 0 {
					log = append(log, name) // one thread: no race
				}
			}}
		}
		m := measureGEMV(ks, stack, map[int]act{}, make([]float32, 64), 1, make([]atomic.Int64, 1), time.Nanosecond)
		want := fwd + fwd + rev + fwd // warm-up, then 3 rounds (the minimum)
		if got := strings.Join(log, ""); got != want || len(m.Ratios) != 3 {
			t.Errorf("%d kernels: passes %s, want %s (%d rounds)", n, got, want, len(m.Ratios))
		}
	}
}

// TestTQ2LayoutF32MatchesNative: for weights with a per-tensor f32 scale, the
// tq2_0 layout's kernel of every build that runs here (f32 blocks) returns
// the float32 bits of the native layout's kernel of the same build and float
// order on every row of advise's generated matrices, as patch 0013 promises.
func TestTQ2LayoutF32MatchesNative(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(12, 68))
	for _, build := range []string{BuildNative, BuildAVX2, BuildBaseline} {
		f, err := Features(build)
		if err != nil {
			t.Fatal(err)
		}
		r := RuleFor(f, "")
		native, err := bitcosKernel(r.Kernel, build)
		if err != nil {
			t.Logf("%s: %v (not run here)", build, err)
			continue
		}
		layout, err := tq2LayoutKernel(r, tq2Kernel(hasAVX2(f)), true, hasAVX2(f))
		if err != nil {
			t.Logf("%s: %v (not run here)", build, err)
			continue
		}
		for _, s := range []Shape{{256, 9}, {2560, 64}, {6912, 16}} {
			for _, z := range []float64{0, 0.42, 1} {
				m, err := genMatrix(rng, s, z, false)
				if err != nil {
					t.Fatal(err)
				}
				y := newAct(rng, s.K)
				if err := check(layout, m, y); err != nil {
					t.Fatalf("%s %v z=%v: %v", build, s, z, err)
				}
				if err := sameBits(layout, native, m, y); err != nil {
					t.Fatalf("%s %v z=%v: %v", build, s, z, err)
				}
			}
		}
		t.Logf("%s: %s (%s) bit-identical to %s", build, layout.Name, layout.Build, native.Name)
	}
}
