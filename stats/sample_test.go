package stats

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestClusterInterval: the cluster interval of a stock tensor's z over a
// population of blocks whose zero fractions differ (per-row sparsity drawn
// from 0.2 to 0.7) covers the true z about 95% of the time over 400 draws
// of 32 blocks; Wilson over the weights, which ignores that weights of one
// block share their row's sparsity, far less.
func TestClusterInterval(t *testing.T) {
	const m, uw, n = 2048, 256, 32
	rng := rand.New(rand.NewPCG(3, 4))
	pop := make([]float64, m)
	var z float64
	for j := range pop {
		if j%8 == 0 { // 8 blocks per row share its sparsity
			z = 0.2 + 0.5*rng.Float64()
		}
		zeros := 0
		for range uw {
			if rng.Float64() < z {
				zeros++
			}
		}
		pop[j] = float64(zeros) / uw
	}
	var truth float64
	for _, y := range pop {
		truth += y / m
	}
	in, wil := 0, 0
	const draws = 400
	for d := range uint64(draws) {
		idx := DrawBlocks("t", d, n, m)
		y := make([]float64, n)
		var zhat float64
		for j, b := range idx {
			y[j] = pop[b]
			zhat += pop[b] / n
		}
		iv := Interval(zhat, y, nil, n, m, uw, 0)
		if truth >= iv.Low && truth <= iv.High {
			in++
		}
		if lo, hi := Wilson(zhat, n*uw); truth >= lo && truth <= hi {
			wil++
		}
	}
	t.Logf("cluster intervals cover %d of %d, Wilson %d", in, draws, wil)
	if in < draws*90/100 || in > draws*99/100 || wil > draws*70/100 {
		t.Errorf("cluster intervals cover %d of %d, Wilson %d", in, draws, wil)
	}
}

func TestDrawBlocks(t *testing.T) {
	for _, c := range []struct{ n, m int64 }{{1, 2}, {5, 6}, {10, 1000}, {999, 1000}} {
		got := DrawBlocks("x", 1, c.n, c.m)
		seen := map[int64]bool{}
		for _, x := range got {
			if x < 0 || x >= c.m || seen[x] {
				t.Fatalf("draw %d of %d: %v", c.n, c.m, got)
			}
			seen[x] = true
		}
		if int64(len(got)) != c.n || !reflect.DeepEqual(got, DrawBlocks("x", 1, c.n, c.m)) {
			t.Fatalf("draw %d of %d: %d blocks, or not reproducible", c.n, c.m, len(got))
		}
	}
	if reflect.DeepEqual(DrawBlocks("x", 1, 10, 1000), DrawBlocks("y", 1, 10, 1000)) {
		t.Fatal("two tensors draw the same blocks")
	}
}

func TestTQuantile(t *testing.T) {
	// Exact values (R: qt(0.975, df)).
	for _, c := range []struct {
		df   int64
		want float64
	}{{1, 12.706}, {30, 2.042}, {31, 2.0395}, {60, 2.0003}, {1000, 1.9623}} {
		if got := tQuantile975(c.df); got < c.want-1e-3 || got > c.want+1e-3 {
			t.Errorf("t(%d) = %.4f, want %.4f", c.df, got, c.want)
		}
	}
}

// TestTableI checks the paper's Table I values follow from z alone.
func TestTableI(t *testing.T) {
	for _, c := range []struct{ z, bitcos, floor float64 }{
		{0.5148, 1.4852, 1.4846},
		{0.422, 1.578, 1.5602},
		{0.30, 1.70, 1.5813},
	} {
		ts := TensorStats{Z: c.z, Weights: 1}
		ts.FillRates()
		if d := ts.BitcosRawBPW - c.bitcos; d > 1e-9 || d < -1e-9 {
			t.Errorf("z=%.4f: 2-z = %.6f, want %.4f", c.z, ts.BitcosRawBPW, c.bitcos)
		}
		if d := ts.EntropyBPW - c.floor; d > 5e-4 || d < -5e-4 {
			t.Errorf("z=%.4f: floor %.5f, want %.4f", c.z, ts.EntropyBPW, c.floor)
		}
	}
}
