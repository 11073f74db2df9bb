package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/advise"
)

// tinyAdvise makes advise's run small enough for a test (no timing is
// asserted: speed is never a unit test's business).
var tinyAdvise = []string{"--budget", "40ms", "--buffer-mib", "1", "--shape", "512x64", "--shape", "256x40", "--threads", "1,2", "-q"}

// TestAdvise: the verb's text and JSON outputs, and that both carry the
// loader's rule; without cgo it fails with exit status 1 and says why.
func TestAdvise(t *testing.T) {
	var o, e bytes.Buffer
	code := run(append([]string{"advise", "--json"}, tinyAdvise...), &o, &e)
	if !advise.Available() {
		if code != exitError || !strings.Contains(e.String(), "cgo") {
			t.Fatalf("without cgo: exit %d, %q", code, e.String())
		}
		return
	}
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var r advise.Result
	if err := json.Unmarshal(o.Bytes(), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, o.String())
	}
	if len(r.Threads) != 2 || len(r.Shapes) != 2 || r.Shapes[0].K != 512 || r.Rule.Layout == "" || r.Threads[1].RuleLayout != r.Rule.Layout {
		t.Fatalf("result %+v", r)
	}
	// the three roles, each once: the native layout, the tq2_0 layout, the
	// TQ2_0 file; and each thread count's ratios to the file
	roles := map[string]int{}
	for _, k := range r.Kernels {
		for _, role := range k.Roles {
			roles[role]++
		}
	}
	if roles[advise.RoleNative] != 1 || roles[advise.RoleTQ2Layout] != 1 || roles[advise.RoleFile] != 1 || len(roles) != 3 {
		t.Errorf("roles %v in %+v", roles, r.Kernels)
	}
	for _, tr := range r.Threads {
		if tr.Measured.NativeVsFile.Median <= 0 || tr.Measured.TQ2VsFile.Median <= 0 || tr.Predicted.NativeVsFile <= 0 || tr.Predicted.TQ2VsFile <= 0 {
			t.Errorf("%d threads: no ratio to the TQ2_0 file: %+v %+v", tr.Threads, tr.Predicted, tr.Measured)
		}
	}
	// the batches: measured in a native build with AVX2 and FMA (the
	// kernels' tests check the builds), at every thread count
	if b := r.Batched; b == nil || b.NotRun == "" && (len(b.Threads) != 2 || b.Gemm == "" || len(b.Shapes) != 2) {
		t.Errorf("batched %+v", b)
	}
	// a model: its shapes, z and scale kind (I2_S: one f32 per tensor, which
	// takes the same layout as fp16 scales, in f32 blocks: the tq2_0 layout's
	// kernel is the f32-block one patch 0013 runs)
	fp16Layout := r.Rule.Layout
	o.Reset()
	if code := run([]string{"advise", "--json", "-q", "--budget", "40ms", "--buffer-mib", "1", "--threads", "1", "../../testdata/tiny-i2_s.gguf"}, &o, &e); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	r = advise.Result{}
	if err := json.Unmarshal(o.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.FP16Scales || r.ZSource != "model" || r.Model == "" || r.Rule.Layout != fp16Layout || len(r.Shapes) != 2 || r.Shapes[0].K != 256 {
		t.Errorf("I2_S model: %+v", r)
	}
	for _, k := range r.Kernels {
		if slices.Contains(k.Roles, advise.RoleTQ2Layout) && !strings.Contains(k.Build, "f32 blocks") {
			t.Errorf("I2_S model: the tq2_0 layout runs %s (%s), not an f32-block kernel", k.Name, k.Build)
		}
	}
	o.Reset()
	e.Reset()
	if code := run(append([]string{"advise", "--z", "0.3", "--build", "avx2"}, tinyAdvise...), &o, &e); code != exitOK {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	for _, want := range []string{"loader's rule (kernels/c/bitcos_select.h)", "z = 0.300 (flag)", "build avx2", "roofline: T = max(B / beta, gamma)", "\n1  ", "\n2  ",
		// an AVX2 build has no tq2_0_vnni: ggml's kernel for the tq2_0 layout and the file
		"tq2_0 layout = TQ2_0 file runs tq2_0", "predicted (roofline):", "measured (GEMV", "native x file", "tq2_0 x file", "batched (prompts)"} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, o.String())
		}
	}
}

// TestAdviseUsage: wrong command lines are usage errors (exit 64).
func TestAdviseUsage(t *testing.T) {
	cases := [][]string{
		{"advise", "--threads", "0"}, {"advise", "--threads", "2,1"}, {"advise", "--shape", "100x3"}, {"advise", "--z", "1.5"},
		{"advise", "--build", "avx1024"}, {"advise", "a.gguf", "b.gguf"}, {"advise", "--shape", "256x4", "m.gguf"}, {"advise", "--budget", "x"},
	}
	if advise.Available() { // the kernel names come from the C enum
		cases = append(cases, []string{"advise", "--kernel", "avx1024"})
	}
	for _, args := range cases {
		var o, e bytes.Buffer
		if code := run(args, &o, &e); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, e.String())
		}
	}
}

// TestAdviseKernelCompletion: --kernel completes the C enum's names (cgo
// builds only: they come from bitcos_kernel_name).
func TestAdviseKernelCompletion(t *testing.T) {
	if !advise.Available() {
		t.Skip("built without cgo")
	}
	var o, e bytes.Buffer
	run([]string{"__complete", "advise", "--kernel", ""}, &o, &e)
	for _, w := range []string{"generic", "avx512_tq2", "avx2_clmul", "neon_tq2"} {
		if !strings.Contains(o.String(), w+"\n") {
			t.Errorf("completions %q lack %q", o.String(), w)
		}
	}
}

// TestFromModel: the largest ternary shapes, the zero density and the
// scale kind of the committed fixtures (stats --sample's estimate of z).
func TestFromModel(t *testing.T) {
	for _, tc := range []struct {
		file   string
		z      float64 // stats' exact z of the file
		f32    bool
		shapes []advise.Shape
		note   string
	}{
		{"tiny-tq2_0.gguf", 0.4264, false, []advise.Shape{{K: 256, Rows: 512}, {K: 512, Rows: 256}}, ""},
		{"tiny-tq1_0.gguf", 0.4410, false, []advise.Shape{{K: 256, Rows: 512}, {K: 512, Rows: 256}}, ""},
		{"tiny-i2_s.gguf", 0.3751, true, []advise.Shape{{K: 256, Rows: 512}, {K: 512, Rows: 256}}, ""},
		{"tiny-q2_0.gguf", 0.3960, false, []advise.Shape{{K: 256, Rows: 512}, {K: 512, Rows: 256}}, "one scale per 64"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var o advise.Options
			if err := advise.FromModel("../../testdata/"+tc.file, readModel, &o); err != nil {
				t.Fatal(err)
			}
			if q2 := tc.note != ""; o.Q2_0 != q2 {
				t.Errorf("Q2_0 %v, want %v", o.Q2_0, q2)
			}
			if !slices.Equal(o.Shapes, tc.shapes) || o.F32 != tc.f32 || o.ZSource != "model" || !strings.HasSuffix(o.Model, tc.file) ||
				math.Abs(o.Z-tc.z) > 0.03 {
				t.Errorf("got shapes %v, f32 %v, z %v (%s); want %v, %v, about %v", o.Shapes, o.F32, o.Z, o.ZSource, tc.shapes, tc.f32, tc.z)
			}
			// the device note (cgo builds: the rule is C) names CUDA's layout for the scale kind
			device := slices.IndexFunc(o.Notes, func(n string) bool { return strings.HasPrefix(n, "on GPUs") })
			notes := slices.Clone(o.Notes)
			if device >= 0 {
				notes = slices.Delete(notes, device, device+1)
				want := "CUDA/HIP: q2_0"
				if tc.f32 {
					want = "CUDA/HIP: native"
				}
				if !strings.Contains(o.Notes[device], want) {
					t.Errorf("device note %q lacks %q", o.Notes[device], want)
				}
			} else if advise.Available() {
				t.Errorf("notes %q: no device note", o.Notes)
			}
			if (tc.note == "") != (len(notes) == 0) || tc.note != "" && !strings.Contains(notes[0], tc.note) {
				t.Errorf("notes %q, want one containing %q", notes, tc.note)
			}
		})
	}
	var o advise.Options
	if err := advise.FromModel("../../testdata/none.gguf", readModel, &o); err == nil {
		t.Error("a missing file gave no error")
	}
}

// TestPrintBatched: the batched block of advise's text output, from a
// fabricated result: the gemm build, the three kernels, per thread count
// the figures, the ratios to the TQ2_0 file, the winner and the rule's
// layout (agreeing or not); why, when it was not measured; nothing without
// one.
func TestPrintBatched(t *testing.T) {
	s := func(min, med, max float64) advise.Summary {
		return advise.Summary{Min: min, Median: med, Max: max, N: 3}
	}
	measured := &advise.BatchedResult{Columns: 64, PanelRows: 4, GroupRows: 8, Gemm: "AVX512-VNNI",
		NativeKernel: "bitcos_gemm_panel + bitcos_gemm_q8_K (AVX512-VNNI)", TQ2Kernel: "bitcos_gemm_panel_tq2_0 (TQ2_0 blocks) + bitcos_gemm_q8_K (AVX512-VNNI)",
		FileKernel: "tq2_0 per (row, column) (AVX2+FMA)", Shapes: []advise.Shape{{K: 2560, Rows: 200}, {K: 6912, Rows: 80}},
		Threads: []advise.BatchedThreads{
			{Threads: 1, NativeNs32: s(0.2, 0.25, 0.3), TQ2Ns32: s(0.21, 0.24, 0.31), FileNs32: s(0.5, 0.6, 0.7),
				NativeVsFile: s(2.2, 2.4, 2.6), TQ2VsFile: s(2.3, 2.5, 2.7), Ratios: []float64{0.95, 0.96, 0.97},
				Verdict: advise.Verdict{Winner: advise.LayoutTQ2, Ratio: 0.96, Margin: 1/0.96 - 1, Clear: true}, RuleLayout: advise.LayoutTQ2, Agrees: true},
			{Threads: 2, NativeNs32: s(0.4, 0.45, 0.5), TQ2Ns32: s(0.5, 0.55, 0.6), FileNs32: s(0.9, 1, 1.1),
				NativeVsFile: s(2.1, 2.22, 2.3), TQ2VsFile: s(1.7, 1.82, 1.9), Ratios: []float64{1.2, 1.22, 1.25},
				Verdict: advise.Verdict{Winner: advise.LayoutNative, Ratio: 1.22, Margin: 0.22, Clear: true}, RuleLayout: advise.LayoutTQ2},
		}}
	for _, tc := range []struct {
		name   string
		b      *advise.BatchedResult
		want   []string
		absent []string
	}{
		{"measured", measured, []string{
			"batched (prompts): bitcos_gemm.c AVX512-VNNI, 64 columns x groups of 8 rows (panels of 4); data in cache (2560x200, 6912x80)",
			"  native layout runs bitcos_gemm_panel + bitcos_gemm_q8_K (AVX512-VNNI)\n",
			"  tq2_0 layout runs bitcos_gemm_panel_tq2_0 (TQ2_0 blocks) + bitcos_gemm_q8_K (AVX512-VNNI)\n",
			"  TQ2_0 file runs tq2_0 per (row, column) (AVX2+FMA)\n",
			"native x file (min-max)",
			"\n1        0.250 (0.200)  0.240 (0.210)    0.600 (0.500)  2.40x (2.20-2.60)        2.50x (2.30-2.70)       3       tq2_0 +4%    tq2_0 agrees",
			"\n2        0.450 (0.400)  0.550 (0.500)    1.000 (0.900)  2.22x (2.10-2.30)        1.82x (1.70-1.90)       3       native +22%  tq2_0 DISAGREES: GGML_BITCOS_LAYOUT=native runs faster here",
		}, []string{"not measured"}},
		{"not run", &advise.BatchedResult{Columns: 64, PanelRows: 4, GroupRows: 8, NotRun: "build baseline runs no batched kernel here"},
			[]string{"batched (prompts): not measured: build baseline runs no batched kernel here\n"}, []string{"(the TQ2_0 file = 1)", "runs bitcos_gemm"}},
		{"none", nil, nil, []string{"batched"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o bytes.Buffer
			saved := stdout
			stdout = &o
			defer func() { stdout = saved }()
			printAdvice(&advise.Result{Build: advise.BuildNative, Rule: advise.Rule{Layout: advise.LayoutTQ2}, Batched: tc.b})
			for _, w := range tc.want {
				if !strings.Contains(o.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, o.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(o.String(), a) {
					t.Errorf("output has %q:\n%s", a, o.String())
				}
			}
		})
	}
}
