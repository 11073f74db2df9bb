package advise

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// checkBatchedResult checks r.Batched of a run with options o against
// itself: the build of bitcos_gemm.c pickGemm names, or why none, one
// matrix per distinct K in whole groups of two panels, every thread count with its
// rounds, ratios and verdict (no timing is asserted).
func checkBatchedResult(t *testing.T, r *Result, o Options) {
	t.Helper()
	b := r.Batched
	if b == nil || b.Columns != BatchColumns || b.PanelRows != 4 || b.GroupRows != 8 {
		t.Fatalf("batched %+v", b)
	}
	f, err := Features(o.Build)
	if err != nil {
		t.Fatal(err)
	}
	g, why := pickGemm(o.Build, f)
	if b.NotRun != why || b.Gemm != g.Name {
		t.Fatalf("batched: gemm %q, not run %q; pickGemm: %q, %q", b.Gemm, b.NotRun, g.Name, why)
	}
	if why != "" {
		if len(b.Threads) != 0 || len(b.Shapes) != 0 {
			t.Errorf("batched not run (%s), yet %+v", why, b)
		}
		return
	}
	var want []Shape
	for _, s := range o.Shapes {
		if !slices.ContainsFunc(want, func(w Shape) bool { return w.K == s.K }) {
			want = append(want, Shape{K: s.K, Rows: batchRows(s.K)})
		}
	}
	if !slices.Equal(b.Shapes, want) {
		t.Errorf("batched shapes %v, want %v", b.Shapes, want)
	}
	for _, s := range b.Shapes {
		if s.Rows%8 != 0 || s.Rows < cacheRows(s.K) {
			t.Errorf("batched %v: not whole groups of 8 rows, at least cacheRows", s)
		}
	}
	if !strings.Contains(b.NativeKernel, "bitcos_gemm_panel") || !strings.Contains(b.TQ2Kernel, "bitcos_gemm_panel_tq2_0") ||
		strings.Contains(b.TQ2Kernel, "f32 blocks") != o.F32 || !strings.Contains(b.FileKernel, "per (row, column)") {
		t.Errorf("batched kernels %q, %q, %q (f32 %v)", b.NativeKernel, b.TQ2Kernel, b.FileKernel, o.F32)
	}
	if len(b.Threads) != len(o.Threads) {
		t.Fatalf("batched: %d thread results for %v", len(b.Threads), o.Threads)
	}
	for i, bt := range b.Threads {
		n := bt.NativeNs32.N
		if bt.Threads != o.Threads[i] || n < 3 || n%2 == 0 || bt.TQ2Ns32.N != n || bt.FileNs32.N != n || len(bt.Ratios) != n ||
			bt.NativeVsFile.N != n || bt.TQ2VsFile.N != n || bt.NativeNs32.Median <= 0 || bt.TQ2Ns32.Median <= 0 || bt.FileNs32.Median <= 0 {
			t.Errorf("batched at %d threads: %+v", o.Threads[i], bt)
		}
		if bt.Verdict != Decide(bt.Ratios) || bt.RuleLayout != r.Rule.Layout || bt.Agrees != (bt.Verdict.Winner == r.Rule.Layout) {
			t.Errorf("batched at %d threads: verdict %+v of %v, rule %s, agrees %v", bt.Threads, bt.Verdict, bt.Ratios, bt.RuleLayout, bt.Agrees)
		}
	}
}

// TestBatched: the batched measurement of weights with a per-tensor f32
// scale (the tq2_0 layout's panels from f32 blocks, patch 0013) in the builds
// that run one (TestSmoke checks fp16 scales in every build).
func TestBatched(t *testing.T) {
	needCgo(t)
	for _, build := range []string{BuildNative, BuildAVX2} {
		t.Run(build, func(t *testing.T) {
			o := tiny(build)
			o.F32, o.Threads, o.Budget = true, []int{1}, 30*time.Millisecond
			r, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			checkBatchedResult(t, r, o)
		})
	}
}

// TestPickGemm: the build of bitcos_gemm.c measured for each llama.cpp build
// on this CPU: the best SIMD path it runs in a native build, AVX2 in an AVX2
// build, none (and why) where the build's TQ2_0 kernel is not in the x86
// order (the baseline build: patch 0012's ggml_bitcos_gemm_ok).
func TestPickGemm(t *testing.T) {
	needCgo(t)
	native := "AVX2"
	switch {
	case ckern512.CPUHasGemm(true):
		native = "AVX512-VNNI"
	case ckern512.CPUHasGemm(false):
		native = "AVX-512 F+BW"
	case cpuid.CPU.Supports(cpuid.AVXVNNI):
		native = "AVX2+AVX-VNNI"
	}
	for _, tc := range []struct {
		build, want string
	}{
		{BuildNative, native},
		{BuildAVX2, "AVX2"},
		{BuildBaseline, ""},
	} {
		t.Run(tc.build, func(t *testing.T) {
			f, err := Features(tc.build)
			if err != nil {
				t.Fatal(err)
			}
			g, why := pickGemm(tc.build, f)
			switch {
			case !hasAVX2(f) || tc.want == "":
				if why == "" || g.Name != "" {
					t.Errorf("no x86 TQ2_0 order: gemm %q, why %q", g.Name, why)
				}
			case !ckern.GCC():
				t.Logf("not GCC: gemm %q (%s)", g.Name, why)
			case g.Name != tc.want || why != "":
				t.Errorf("gemm %q (%s), want %q", g.Name, why, tc.want)
			}
		})
	}
}

// TestCheckBatchedCatchesWrongResults: the check before timing passes the
// three batches as they are and fails each of them when it reads other rows
// or other columns, or when one of its outputs is off by one ulp or not
// written: at a checked (row, column) pair always, at an unchecked one where
// another batch computes the same bits (all but the TQ2_0 file's with f32 scales, whose
// blocks carry fp16 scales of their own).
func TestCheckBatchedCatchesWrongResults(t *testing.T) {
	needCgo(t)
	f, _ := Features(BuildNative)
	g, why := pickGemm(BuildNative, f)
	if why != "" {
		t.Skip(why)
	}
	file := tq2Kernel(hasAVX2(f))
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, ncols = 12, 6 // pick: rows 0-4, 6, 10, 11; columns 0-5
	ulp := func(out []float32, i int) { out[i] = math.Nextafter32(out[i], float32(math.Inf(1))) }
	for _, f32 := range []bool{false, true} {
		m, err1 := genMatrix(rng, Shape{512, rows}, 0.42, !f32)
		other, err2 := genMatrix(rng, Shape{512, rows}, 0.42, !f32)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		c := newCols(rng, 512, ncols)
		shifted := cols{k: c.k, n: c.n, y: append(slices.Clone(c.y[c.k/256:]), c.y[:c.k/256]...)}
		ks := batchKernels(g, f, file, f32)
		if err := checkBatched(ks, m, c); err != nil {
			t.Fatalf("f32 %v, good data: %v", f32, err)
		}
		for i, k := range ks {
			for _, w := range []struct {
				name   string
				caught bool
				run    batchFunc
			}{
				{"other rows", true, func(_ *matrix, c cols, out []float32) { k.run(other, c, out) }},
				{"other columns", true, func(m *matrix, _ cols, out []float32) { k.run(m, shifted, out) }},
				{"checked output off", k.order != orderNone, func(m *matrix, c cols, out []float32) {
					k.run(m, c, out)
					ulp(out, (ncols-1)*m.Rows+m.Rows-1)
				}},
				{"unchecked output off", k.order == orderTQ2X86 && !(f32 && i == 2), func(m *matrix, c cols, out []float32) {
					k.run(m, c, out)
					ulp(out, 2*m.Rows+5)
				}},
				{"unchecked output not written", k.order == orderTQ2X86 && !(f32 && i == 2), func(m *matrix, c cols, out []float32) {
					tmp := make([]float32, len(out))
					k.run(m, c, tmp)
					x := 2*m.Rows + 5
					copy(out[:x], tmp[:x])
					copy(out[x+1:], tmp[x+1:])
				}},
			} {
				wrong := slices.Clone(ks)
				wrong[i].run = w.run
				if err := checkBatched(wrong, m, c); (err != nil) != w.caught {
					t.Errorf("f32 %v, %s, %s: check says %v, want caught %v", f32, k.Name, w.name, err, w.caught)
				}
			}
		}
	}
}

// TestBatchedRounds: the figures of the rounds: each kernel's summary, the
// per-round ratios to the TQ2_0 file and between the layouts, the verdict
// and whether the rule agrees.
func TestBatchedRounds(t *testing.T) {
	for _, tc := range []struct {
		ns     [][]float64 // native, tq2_0 layout, file; per round
		rule   string
		winner string
		agrees bool
		natVs  float64 // median of file / native
	}{
		{[][]float64{{1, 2, 1}, {0.5, 1, 2}, {2, 2, 2}}, LayoutTQ2, LayoutTQ2, true, 2},
		{[][]float64{{1, 2, 1}, {0.5, 1, 2}, {2, 2, 2}}, LayoutNative, LayoutTQ2, false, 2},
		{[][]float64{{1, 1, 1}, {1.2, 1.1, 0.9}, {3, 3, 3}}, LayoutNative, LayoutNative, true, 3},
	} {
		bt := batchedThreads(2, tc.ns, tc.rule)
		ratios := make([]float64, len(tc.ns[0]))
		for r := range ratios {
			ratios[r] = tc.ns[1][r] / tc.ns[0][r]
		}
		if bt.Threads != 2 || !slices.Equal(bt.Ratios, ratios) || bt.Verdict != Decide(ratios) || bt.Verdict.Winner != tc.winner ||
			bt.Agrees != tc.agrees || bt.RuleLayout != tc.rule || bt.NativeVsFile.Median != tc.natVs ||
			bt.NativeNs32 != Summarize(tc.ns[0]) || bt.TQ2Ns32 != Summarize(tc.ns[1]) || bt.FileNs32 != Summarize(tc.ns[2]) {
			t.Errorf("%v, rule %s: %+v", tc.ns, tc.rule, bt)
		}
	}
}
