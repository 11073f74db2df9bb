package advise

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// TestTime32: the roofline's max of the two terms, per 32 weights.
func TestTime32(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      Cost
		beta   float64
		want   float64
		memory bool
	}{
		{"memory-bound TQ2_0", Cost{Bytes32: 8.25, Compute32: 0.5}, 5.5, 1.5, true},
		{"compute-bound BITCOS", Cost{Bytes32: 6.6, Compute32: 1.4}, 6.6, 1.4, false},
		{"tie counts as memory", Cost{Bytes32: 8, Compute32: 2}, 4, 2, true},
		{"huge bandwidth", Cost{Bytes32: 8.25, Compute32: 0.9}, 1000, 0.9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, mem := tc.c.Time32(tc.beta)
			if !near(got, tc.want) || mem != tc.memory {
				t.Errorf("Time32(%v) = %v, memory %v; want %v, %v", tc.beta, got, mem, tc.want, tc.memory)
			}
		})
	}
}

// TestPredict: per shape max(B/β, γ), weighted by weights; the ratio is
// the tq2_0 layout's time over the native layout's, the vs-file ratios the
// TQ2_0 file's time over each layout's; the bound names which term won.
func TestPredict(t *testing.T) {
	bc := func(g float64) Cost { return Cost{Bytes32: 6.6, Compute32: g} }
	tq := func(g float64) Cost { return Cost{Bytes32: 8.25, Compute32: g} }
	for _, tc := range []struct {
		name             string
		shapes           []ShapeCost
		beta             float64
		bcNs, tqNs, fNs  float64
		bcBy, tqBy, fBy  string
		ratio, natV, tqV float64
	}{
		// all memory-bound: the ratio is the byte ratio 8.25/6.6 = 1.25
		{"all memory-bound", []ShapeCost{{1, bc(0.5), tq(0.4), tq(0.4)}}, 3.3, 2, 2.5, 2.5, "memory", "memory", "memory", 1.25, 1.25, 1},
		// BITCOS compute-bound at 3.0, TQ2_0 memory-bound at 2.5: 0.83x
		{"BITCOS compute-bound", []ShapeCost{{1, bc(3.0), tq(0.4), tq(0.4)}}, 3.3, 3.0, 2.5, 2.5, "compute", "memory", "memory", 2.5 / 3.0, 2.5 / 3.0, 1},
		// two shapes, 3:1 weights: (3*2 + 1*4)/4 = 2.5 for BITCOS
		{"two shapes weighted", []ShapeCost{{3, bc(1), tq(1), tq(1)}, {1, bc(4), tq(1), tq(1)}}, 3.3, 2.5, 2.5, 2.5, "mixed", "memory", "memory", 1, 1, 1},
		// a faster tq2_0 layout kernel (VNNI) where TQ2_0 is compute-bound:
		// the file 3, the layout 1.5 (2x the file), BITCOS 2 (1.5x)
		{"VNNI layout, compute-bound", []ShapeCost{{2, bc(2), tq(1.5), tq(3)}}, 100, 2, 1.5, 3, "compute", "compute", "compute", 0.75, 1.5, 2},
		// the same where the layout is memory-bound and the file is not
		{"VNNI layout, memory-bound", []ShapeCost{{1, bc(0.5), tq(1), tq(3)}}, 3.3, 2, 2.5, 3, "memory", "memory", "compute", 1.25, 1.5, 1.2},
		// per shape: the layout's bound differs between shapes, the file's not
		{"VNNI layout, mixed", []ShapeCost{{1, bc(0.5), tq(1), tq(3)}, {1, bc(0.5), tq(4), tq(3)}}, 3.3, 2, 3.25, 3, "memory", "mixed", "compute", 1.625, 1.5, 3 / 3.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Predict(tc.shapes, tc.beta)
			if !near(p.BitcosNs32, tc.bcNs) || !near(p.TQ2Ns32, tc.tqNs) || !near(p.FileNs32, tc.fNs) ||
				p.BitcosBy != tc.bcBy || p.TQ2By != tc.tqBy || p.FileBy != tc.fBy {
				t.Errorf("got %+v; want BITCOS %v (%s), tq2_0 %v (%s), file %v (%s)", p, tc.bcNs, tc.bcBy, tc.tqNs, tc.tqBy, tc.fNs, tc.fBy)
			}
			if !near(p.Ratio, tc.ratio) || !near(p.NativeVsFile, tc.natV) || !near(p.TQ2VsFile, tc.tqV) {
				t.Errorf("ratios %v, %v vs file, %v vs file; want %v, %v, %v", p.Ratio, p.NativeVsFile, p.TQ2VsFile, tc.ratio, tc.natV, tc.tqV)
			}
			// the three ratios are of the same three times
			if !near(p.Ratio, p.NativeVsFile/p.TQ2VsFile) {
				t.Errorf("ratio %v, native/tq2_0 vs file %v", p.Ratio, p.NativeVsFile/p.TQ2VsFile)
			}
		})
	}
	if p := Predict(nil, 1); p.Ratio != 0 || p.BitcosNs32 != 0 || p.NativeVsFile != 0 || p.TQ2VsFile != 0 {
		t.Errorf("no shapes: %+v", p)
	}
}

// TestBytes32: DESIGN.md §1's byte count.
func TestBytes32(t *testing.T) {
	for _, tc := range []struct {
		z    float64
		fp16 bool
		want float64
	}{
		{0.42, true, 6.57}, {0.42, false, 6.32}, {0, true, 8.25}, {1, true, 4.25}, {0.5, true, 6.25},
	} {
		if got := BitcosBytes32(tc.z, tc.fp16); !near(got, tc.want) {
			t.Errorf("BitcosBytes32(%v, %v) = %v, want %v", tc.z, tc.fp16, got, tc.want)
		}
	}
	if TQ2Bytes32 != 8.25 {
		t.Errorf("TQ2Bytes32 = %v", TQ2Bytes32)
	}
}

// TestDecide: the median ratio names the winner, the margin is by how much
// the winner is faster, Clear says whether every round agreed.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ratios []float64
		want   Verdict
	}{
		{"native clearly", []float64{1.2, 1.1, 1.3}, Verdict{LayoutNative, 1.2, 0.2, true}},
		{"tq2_0 clearly", []float64{0.8, 0.8, 0.8}, Verdict{LayoutTQ2, 0.8, 0.25, true}},
		{"native, noisy", []float64{1.1, 0.9, 1.2}, Verdict{LayoutNative, 1.1, 0.1, false}},
		{"tq2_0, noisy", []float64{0.5, 1.25, 0.8}, Verdict{LayoutTQ2, 0.8, 0.25, false}},
		{"even count: mean of the middle two", []float64{1.0, 0.5, 2.0, 0.5}, Verdict{LayoutTQ2, 0.75, 1.0 / 3, false}},
		{"exact tie: native", []float64{1}, Verdict{LayoutNative, 1, 0, true}},
		{"none", nil, Verdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide(tc.ratios)
			if got.Winner != tc.want.Winner || !near(got.Ratio, tc.want.Ratio) || !near(got.Margin, tc.want.Margin) || got.Clear != tc.want.Clear {
				t.Errorf("Decide(%v) = %+v, want %+v", tc.ratios, got, tc.want)
			}
			if len(tc.ratios) > 0 && Winner(got.Ratio) != got.Winner {
				t.Errorf("Winner(%v) = %s, Decide says %s", got.Ratio, Winner(got.Ratio), got.Winner)
			}
		})
	}
}

// TestSummarize: median of odd and even counts, min and max, input untouched.
func TestSummarize(t *testing.T) {
	xs := []float64{3, 1, 2, 10}
	s := Summarize(xs)
	if s != (Summary{Min: 1, Median: 2.5, Max: 10, N: 4}) || xs[0] != 3 {
		t.Errorf("Summarize = %+v (input %v)", s, xs)
	}
	if s := Summarize([]float64{5, 1, 4}); s.Median != 4 {
		t.Errorf("odd median %v", s.Median)
	}
	if s := Summarize(nil); s != (Summary{}) {
		t.Errorf("empty: %+v", s)
	}
}

// TestRepeats: as many as fit, clamped, odd.
func TestRepeats(t *testing.T) {
	for _, tc := range []struct {
		slice, one int64
		lo, hi     int
		want       int
	}{
		{1000, 100, 3, 31, 11}, {1000, 90, 3, 31, 11}, {1000, 500, 3, 31, 3}, {1000, 5000, 3, 31, 3},
		{1000, 1, 3, 31, 31}, {1000, 0, 5, 51, 51}, {1000, 250, 3, 31, 5},
	} {
		if got := repeats(durationNs(tc.slice), durationNs(tc.one), tc.lo, tc.hi); got != tc.want {
			t.Errorf("repeats(%d, %d, %d, %d) = %d, want %d", tc.slice, tc.one, tc.lo, tc.hi, got, tc.want)
		}
	}
}
