package advise

import (
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

func needCgo(t *testing.T) {
	t.Helper()
	if !ckern.Available {
		t.Skip("built without cgo: no C kernels")
	}
}

// tiny is a run small enough for a unit test: two small shapes, 1 MiB
// buffers, a 60 ms budget. It asserts nothing about speed.
func tiny(build string) Options {
	return Options{Threads: []int{1, 2}, Budget: 60 * time.Millisecond, Shapes: []Shape{{512, 96}, {256, 200}},
		ReadBytes: 1 << 20, StackBytes: 1 << 20, Build: build, Seed: 7}
}

// TestRuleIsTheLoaders: what advise prints as the rule is bitcos_select then
// bitcos_select_layout on the features of this build, called directly, for
// every build, forced kernel and scale kind; and the features are those a
// llama.cpp build of that kind has on this CPU.
func TestRuleIsTheLoaders(t *testing.T) {
	needCgo(t)
	idx := kernelIndex()
	for _, build := range Builds {
		f, err := Features(build)
		if err != nil {
			t.Fatal(err)
		}
		built := BuiltNames(f)
		for _, s := range scalarKernels {
			if !slices.Contains(built, s) {
				t.Errorf("%s: scalar kernel %s missing from %v", build, s, built)
			}
		}
		switch build {
		case BuildBaseline:
			if len(built) != len(scalarKernels) {
				t.Errorf("baseline build has %v", built)
			}
		case BuildAVX2:
			for _, n := range built {
				if strings.Contains(n, "512") || n == "neon_tq2" {
					t.Errorf("AVX2 build has %s", n)
				}
			}
		}
		if bits.OnesCount32(f.Built) != len(built) {
			t.Errorf("%s: mask %#x, names %v", build, f.Built, built)
		}
		for _, forced := range append([]string{""}, kernelNames()...) {
			got := RuleFor(f, forced)
			var fp *string
			if forced != "" {
				fp = &forced
			}
			c := ckern.Select(f, fp)
			l := ckern.SelectLayout(c, nil)
			if got.Kernel != c.Name || got.KernelWhy != c.Why || got.Order != c.Order || got.KernelForced != c.Forced ||
				got.Layout != l.Name || got.LayoutWhy != l.Why || idx[got.Kernel] != c.Kernel {
				t.Errorf("%s, forced %q: advise %+v, loader %+v %+v", build, forced, got, c, l)
			}
		}
	}
	// on a CPU with AVX-512 (this project's machines), the native build picks
	// avx512_tq2 and the native layout, or tq2_0 on AMD with AVX-512 VNNI;
	// the AVX2 build avx2_clmul and tq2_0
	f, _ := Features(BuildNative)
	if f.Built>>idx["avx512_tq2"]&1 != 0 {
		want := LayoutNative
		if f.TQ2_0VNNI && f.Vendor == vendorAMD {
			want = LayoutTQ2
		}
		if r := RuleFor(f, ""); r.Kernel != "avx512_tq2" || r.Layout != want {
			t.Errorf("native build (vendor %d, tq2_0_vnni %v): %+v, want layout %s", f.Vendor, f.TQ2_0VNNI, r, want)
		}
	}
	f, _ = Features(BuildAVX2)
	if f.Built>>idx["avx2_clmul"]&1 != 0 && f.PCLMUL && !ckern.SlowPdep(f.Vendor, f.Family) {
		if r := RuleFor(f, ""); r.Kernel != "avx2_clmul" || r.Layout != LayoutTQ2 {
			t.Errorf("AVX2 build: %+v", r)
		}
	}
	if _, err := Features("avx1024"); err == nil {
		t.Error("unknown build accepted")
	}
}

// TestSmoke runs the whole measurement, tiny, for every build: the result
// is complete and consistent with itself (no timing is asserted).
func TestSmoke(t *testing.T) {
	needCgo(t)
	for _, build := range Builds {
		t.Run(build, func(t *testing.T) {
			o := tiny(build)
			r, err := Run(o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Rule.Kernel == "" || r.Rule.Layout == "" || r.Kernels[0].Name != r.Rule.Kernel ||
				r.Kernels[0].Layout != LayoutNative || r.Kernels[1].Layout != LayoutTQ2 {
				t.Fatalf("rule %+v, kernels %+v", r.Rule, r.Kernels)
			}
			// the kernels and their roles: with tq2_0_vnni three (the VNNI
			// kernel for the tq2_0 layout, ggml's for the file), else two
			// (ggml's for both)
			wantRoles := [][]string{{RoleNative}, {RoleTQ2Layout, RoleFile}}
			wantNames := []string{r.Rule.Kernel, "tq2_0"}
			if r.Rule.TQ2_0VNNI {
				wantRoles = [][]string{{RoleNative}, {RoleTQ2Layout}, {RoleFile}}
				wantNames = []string{r.Rule.Kernel, "tq2_0_vnni", "tq2_0"}
			}
			if len(r.Kernels) != len(wantNames) {
				t.Fatalf("tq2_0_vnni %v: kernels %+v", r.Rule.TQ2_0VNNI, r.Kernels)
			}
			for i, k := range r.Kernels {
				if k.Name != wantNames[i] || !slices.Equal(k.Roles, wantRoles[i]) || (i > 0) != (k.Layout == LayoutTQ2) {
					t.Errorf("kernel %d: %s %v %s, want %s %v", i, k.Name, k.Roles, k.Layout, wantNames[i], wantRoles[i])
				}
			}
			file := r.Kernels[len(r.Kernels)-1]
			for _, k := range r.Kernels {
				var got []ComputeResult
				for _, c := range k.Compute {
					if c.Ns32.N < 5 || c.Ns32.Median <= 0 || c.Ns32.N%2 == 0 {
						t.Errorf("%s compute %+v", k.Name, c)
					}
					got = append(got, ComputeResult{Threads: c.Threads, K: c.K})
				}
				if want := []ComputeResult{{Threads: 1, K: 512}, {Threads: 1, K: 256}, {Threads: 2, K: 512}, {Threads: 2, K: 256}}; !slices.Equal(got, want) {
					t.Errorf("%s compute terms for %v, want %v", k.Name, got, want)
				}
			}
			if r.Stack.Layers < 2 || r.Stack.Weights != int64(r.Stack.Layers)*(512*96+256*200) || r.Stack.TQ2Bytes != r.Stack.Weights/256*66 {
				t.Errorf("stack %+v", r.Stack)
			}
			if len(r.Threads) != 2 {
				t.Fatalf("%d thread results", len(r.Threads))
			}
			for _, tr := range r.Threads {
				m := tr.Measured
				if tr.ReadGBs.N < 3 || tr.Beta != tr.ReadGBs.Median/float64(tr.Threads) || len(m.Ratios) != m.BitcosMs.N || m.TQ2Ms.N != m.BitcosMs.N ||
					m.FileMs.N != m.BitcosMs.N || m.NativeVsFile.N != m.BitcosMs.N || m.TQ2VsFile.N != m.BitcosMs.N ||
					m.BitcosMs.N < 3 || m.BitcosMs.N%2 == 0 {
					t.Errorf("%d threads: %+v", tr.Threads, tr)
				}
				// one pass serves the tq2_0 layout and the file when they run
				// one kernel: ratio 1 exactly, predicted and measured
				if !r.Rule.TQ2_0VNNI && (m.FileMs != m.TQ2Ms || m.TQ2VsFile != (Summary{Min: 1, Median: 1, Max: 1, N: m.BitcosMs.N}) || tr.Predicted.TQ2VsFile != 1) {
					t.Errorf("%d threads, ggml's kernel for both: tq2_0 %+v, file %+v, vs file %+v, predicted %v", tr.Threads, m.TQ2Ms, m.FileMs, m.TQ2VsFile, tr.Predicted.TQ2VsFile)
				}
				if tr.RuleLayout != r.Rule.Layout || tr.Agrees != (m.Verdict.Winner == r.Rule.Layout) || m.Verdict != Decide(m.Ratios) ||
					tr.PredictedWinner != Winner(tr.Predicted.Ratio) {
					t.Errorf("%d threads: rule %s, verdict %+v, agrees %v", tr.Threads, tr.RuleLayout, m.Verdict, tr.Agrees)
				}
				w32 := float64(r.Stack.Weights) / 32
				if !near(m.BitcosNs32, m.BitcosMs.Median*1e6*float64(tr.Threads)/w32) || !near(m.TQ2Ns32, m.TQ2Ms.Median*1e6*float64(tr.Threads)/w32) ||
					!near(m.FileNs32, m.FileMs.Median*1e6*float64(tr.Threads)/w32) {
					t.Errorf("%d threads: per-thread ns/32 %v, %v, %v from medians %v, %v, %v ms", tr.Threads, m.BitcosNs32, m.TQ2Ns32, m.FileNs32,
						m.BitcosMs.Median, m.TQ2Ms.Median, m.FileMs.Median)
				}
				// the prediction is the roofline of the printed figures: each
				// shape's bytes and its K's compute term, the printed beta
				var sc []ShapeCost
				for _, s := range r.Shapes {
					gamma := func(k KernelResult) float64 {
						for _, c := range k.Compute {
							if c.K == s.K && c.Threads == tr.Threads {
								return c.Ns32.Median
							}
						}
						t.Fatalf("%s: no compute term for K = %d", k.Name, s.K)
						return 0
					}
					sc = append(sc, ShapeCost{Weights: float64(s.K * s.Rows),
						Bitcos: Cost{s.BitcosBytes32, gamma(r.Kernels[0])}, TQ2: Cost{s.TQ2Bytes32, gamma(r.Kernels[1])}, File: Cost{s.TQ2Bytes32, gamma(file)}})
				}
				if p := Predict(sc, tr.Beta); p != tr.Predicted {
					t.Errorf("%d threads: printed prediction %+v, the roofline of the printed figures %+v", tr.Threads, tr.Predicted, p)
				}
			}
			checkBatchedResult(t, r, o)
			for _, s := range r.Shapes {
				// the generated bytes: DESIGN's count plus the row index, the
				// byte-aligned rows and the tail
				want := BitcosBytes32(r.Z, true)
				if s.BitcosBytes32 < want-0.1 || s.BitcosBytes32 > want+0.8 || s.TQ2Bytes32 != TQ2Bytes32 {
					t.Errorf("%v: %+v, about %v expected", s.Shape, s, want)
				}
			}
		})
	}
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// TestJSONShape: the keys of --json are snake_case, and the ones a reader
// needs are there.
func TestJSONShape(t *testing.T) {
	needCgo(t)
	o := tiny(BuildNative)
	o.Threads = []int{1}
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				keys[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	for k := range keys {
		if !snakeCase.MatchString(k) {
			t.Errorf("key %q is not snake_case", k)
		}
	}
	for _, k := range []string{"cpu", "rule", "layout", "kernel", "threads", "read_gb_per_s", "beta_gb_per_s_per_thread", "predicted",
		"measured", "ratios", "verdict", "winner", "agrees", "rule_layout", "ns_per_32", "median", "min", "zero_density", "shapes", "roofline",
		"tq2_0_vnni", "roles", "tq2_0_file_ms", "tq2_0_file_ns_per_32", "tq2_0_file_bound", "native_vs_file", "tq2_0_vs_file",
		"bitcos_ms", "tq2_0_ms", "bitcos_ns_per_32", "tq2_0_ns_per_32", "bitcos_bound", "tq2_0_bound", "ratio",
		"batched", "columns", "panel_rows", "group_rows", "gemm_build", "native_kernel", "tq2_0_kernel", "tq2_0_file_kernel", "native_ns_per_32"} {
		if !keys[k] {
			t.Errorf("no key %q in %s", k, raw)
		}
	}
}

// TestCheckCatchesWrongResults: the check before timing fails when a
// kernel reads other rows than the reference does (here: another matrix of
// the same shape), for the native kernel, the tq2_0 layout's and the TQ2_0
// file's.
func TestCheckCatchesWrongResults(t *testing.T) {
	needCgo(t)
	f, _ := Features(BuildNative)
	rule := RuleFor(f, "")
	native, err := bitcosKernel(rule.Kernel, BuildNative)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	file := tq2Kernel(hasAVX2(f))
	layout, err := tq2LayoutKernel(rule, file, false, hasAVX2(f))
	if err != nil {
		t.Fatal(err)
	}
	layout32, err := tq2LayoutKernel(rule, file, true, hasAVX2(f))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []kernel{native, layout, file, layout32} {
		m, err1 := genMatrix(rng, Shape{512, 8}, 0.42, !k.F32)
		other, err2 := genMatrix(rng, Shape{512, 8}, 0.42, !k.F32)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		y := newAct(rng, 512)
		if err := check(k, m, y); err != nil {
			t.Fatalf("%s on good data: %v", k.Name, err)
		}
		wrong := k
		wrong.run = func(_ *matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
			k.run(other, r0, r1, y, out)
		}
		if err := check(wrong, m, y); err == nil {
			t.Errorf("%s: check passed on other data", k.Name)
		}
	}
}

// TestGenPlanes: the generated zero density is z, signs only where present.
func TestGenPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, z := range []float64{0, 0.3, 0.42, 0.515, 1} {
		p := genPlanes(rng, Shape{2560, 64}, z)
		zeros, neg := 0, 0
		for w := range p.Present {
			zeros += 64 - bits.OnesCount64(p.Present[w])
			neg += bits.OnesCount64(p.Neg[w])
			if p.Neg[w]&^p.Present[w] != 0 {
				t.Fatalf("z %v: sign without presence", z)
			}
		}
		n := float64(2560 * 64)
		if got := float64(zeros) / n; math.Abs(got-z) > 0.01 {
			t.Errorf("z %v: generated %v", z, got)
		}
		if nz := n - float64(zeros); nz > 0 && math.Abs(float64(neg)/nz-0.5) > 0.01 {
			t.Errorf("z %v: %v of the non-zeros negative", z, float64(neg)/nz)
		}
	}
}

// TestRunRejects: bad options are errors, before anything is measured.
func TestRunRejects(t *testing.T) {
	needCgo(t)
	for _, o := range []Options{
		{Threads: []int{0}}, {Threads: []int{}}, {Z: 1.5, ZSource: "flag"}, {Kernel: "avx1024"}, {Build: "avx1024"},
		{Shapes: []Shape{{100, 3}}, Budget: time.Millisecond, ReadBytes: 1 << 16, StackBytes: 1 << 16, Threads: []int{1}},
	} {
		if _, err := Run(o); err == nil || errors.Is(err, ErrNeedsCgo) {
			t.Errorf("Run(%+v) = %v", o, err)
		}
	}
}

// TestEveryKernel: every kernel advise can run here, forced by --kernel,
// runs its wrapper on the right rows (the
// pre-timing check: bit for bit with the Go reference of its float order),
// and the rule then keeps the native layout; on a CPU with AVX2, FMA and
// AVX-512 all but neon_tq2 run.
func TestEveryKernel(t *testing.T) {
	needCgo(t)
	ran := 0
	for _, name := range kernelNames() {
		if _, err := bitcosKernel(name, BuildNative); err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		o := tiny(BuildNative)
		o.Kernel, o.Threads, o.Budget = name, []int{1}, 10*time.Millisecond
		r, err := Run(o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Rule.Kernel != name || !r.Rule.KernelForced || r.Kernels[0].Name != name || r.Rule.Layout != LayoutNative {
			t.Errorf("%s forced: rule %+v, kernels %+v", name, r.Rule, r.Kernels)
		}
		ran++
	}
	if cpuFMA() && kernelRuns("avx512_tq2") && ran != len(kernelNames())-1 {
		t.Errorf("%d of %d kernels ran", ran, len(kernelNames()))
	}
}

// TestQ2_0Sources: with Options.Q2_0 a run also times the two CPU layouts of
// weights with scales per 64 (Result.Q2_0, which checks first that both give
// the same bits): a verdict at every thread count, the series' layout as the
// rule, and the bytes each layout reads (Q2_0 blocks: 9 per 32 weights).
func TestQ2_0Sources(t *testing.T) {
	needCgo(t)
	o := tiny(BuildNative)
	o.Q2_0 = true
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	q := r.Q2_0
	if q == nil || len(q.Threads) != len(o.Threads) || q.Rule != LayoutTQ2 || q.Bytes32.Blocks != 9 ||
		q.Bytes32.Native <= 0 || q.Bytes32.Native >= 9 {
		t.Fatalf("Q2_0 result %+v", q)
	}
	for _, tr := range q.Threads {
		if tr.NativeMs.N < 3 || tr.BlocksMs.N != tr.NativeMs.N || tr.Verdict.Winner == "" || tr.Agrees != (tr.Verdict.Winner == LayoutTQ2) {
			t.Errorf("%+v", tr)
		}
	}
	o.Q2_0 = false
	if r, err = Run(o); err != nil || r.Q2_0 != nil {
		t.Fatalf("without Options.Q2_0: %v, %+v", err, r.Q2_0)
	}
}
