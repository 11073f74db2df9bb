package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/x448/float16"
)

// TestDequantizeRow: the Go reference decode and its C twin return, bit for
// bit, float32(t) * scale for every weight of rows of every zero density,
// with per-256 fp16 scales (zeros of both signs, subnormals, negatives: -0
// for a zero weight under a negative scale, as TQ2_0's decode gives) and
// with a per-tensor scale.
func TestDequantizeRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, tc := range []struct {
		k, rows   int
		zs        []float64
		perTensor bool
	}{
		{256, 8, []float64{0, 0.3, 0.42, 0.52, 0.9, 1}, false},
		{2560, 16, []float64{0.30, 0.36, 0.44, 0.52}, false},
		{6912, 4, []float64{0.42}, true},
	} {
		t.Run(fmt.Sprintf("k%d-rows%d-pt%v", tc.k, tc.rows, tc.perTensor), func(t *testing.T) {
			m := makeRows(t, rng, tc.k, tc.rows, tc.zs, tc.perTensor)
			want := make([]float32, tc.k*tc.rows)
			for r := range tc.rows {
				for j := range tc.k {
					d := m.d32
					if m.d16 != nil {
						d = float16.Frombits(m.d16[r*tc.k/QK_K+j/QK_K]).Float32()
					}
					want[r*tc.k+j] = float32(m.p.Value(r, j)) * d
				}
			}
			got := make([]float32, tc.k*tc.rows)
			for r := range tc.rows {
				DequantizeRow(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.scaleGroup(), m.d32, got[r*tc.k:(r+1)*tc.k])
			}
			sameBits(t, "Go", got, want)
			if !ckern.Available {
				t.Log("C twin not run: built without cgo")
				return
			}
			c := make([]float32, tc.k*tc.rows)
			ckern.DequantizeRows(tc.k, tc.rows, m.bitmap, m.signs, m.off, m.d16, m.d32, c)
			sameBits(t, "C", c, want)
		})
	}
}

func sameBits(t *testing.T, who string, got, want []float32) {
	t.Helper()
	bad := 0
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if bad < 5 {
				t.Errorf("%s: value %d = %g (%#08x), want %g (%#08x)", who, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", who, bad, len(want))
	}
}
