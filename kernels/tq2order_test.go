package kernels

import (
	"math"

	"github.com/x448/float16"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// TestTQ2OrderMatchesReference: the C parity kernel returns the float32 bits
// of VecDotQ8KTQ2Order (TQ2_0's x86 float order, written from ggml's AVX2
// kernel), on encoder rows of every test shape; and it is close to, but as
// a rule not bit-equal with, the exact-order kernels.
func TestTQ2OrderMatchesReference(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(71, 72))
	differ := 0
	for _, k := range testKs {
		m := makeRows(t, rng, k, len(testZs), testZs, false)
		for _, raw := range []bool{false, true} {
			y := randomActivations(rng, k, raw)
			out := make([]float32, m.rows)
			ckern.GEMV(ckern.TQ2Order, m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
			wpr := k / 8
			for r := 0; r < m.rows; r++ {
				bm := m.bitmap[r*wpr : (r+1)*wpr]
				sg := m.signs[m.off[r]:]
				want := VecDotQ8KTQ2Order(bm, sg, m.d16[r*k/QK_K:(r+1)*k/QK_K], 0, y)
				if math.Float32bits(out[r]) != math.Float32bits(want) {
					t.Fatalf("k=%d row %d: C %v, Go reference %v", k, r, out[r], want)
				}
				exact := VecDotQ8K(bm, sg, m.d16[r*k/QK_K:(r+1)*k/QK_K], 0, y)
				if out[r] != exact {
					differ++
					// Both orders round a few float steps per block: bound
					// the difference by the blocks' largest possible terms.
					var bound float64
					for b := range k / QK_K {
						bound += math.Abs(float64(y[b].D)*float64(f16(m.d16[r*k/QK_K+b]))) * 256 * 127
					}
					if d := math.Abs(float64(out[r] - exact)); d > 1e-6*bound {
						t.Fatalf("k=%d row %d: TQ2_0 order %v far from exact order %v", k, r, out[r], exact)
					}
				}
			}
		}
	}
	t.Logf("%d outputs differ in the last bits between the two orders", differ)
}

func f16(h uint16) float32 { return float16.Frombits(h).Float32() }
