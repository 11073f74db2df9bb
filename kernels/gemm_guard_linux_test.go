//go:build linux

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGemmStaysInBounds: the batched kernel's panel decode reads up to 8
// bytes past a row's last sign byte and nothing past its bitmap or its TQ2_0
// blocks, and its tiles nothing past a column's blocks: each row and the
// column end at an inaccessible page (a bad read kills the test), in every
// build this CPU runs.
func TestGemmStaysInBounds(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, k := range []int{256, 2560} {
		m := makeRows(t, rng, k, len(testZs), testZs, false)
		y := guardedColumn(t, randomActivations(rng, k, true))
		for r := range m.rows {
			one := guardedRow(t, m, r)
			want := VecDotQ8KTQ2Order(one.bitmap, one.signs, one.d16, 0, y)
			for _, b := range gemmBuilds() {
				if b.why != "" {
					continue
				}
				var got [1]float32
				b.run(k, 1, 1, one, 1, y, got[:], nil)
				if math.Float32bits(got[0]) != math.Float32bits(want) {
					t.Fatalf("%s k=%d row %d: got %v, want %v", b.name, k, r, got[0], want)
				}
			}
		}
	}
}
