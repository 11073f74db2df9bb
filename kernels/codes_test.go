package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// TestCodesToTQ2_0: a BITCOS row decoded to codes (bitcos_row_codes) and
// packed by bitcos_codes_to_tq2_0 is, byte for byte, the TQ2_0 encoding of
// the same ternary values and fp16 scales (format.TQ2_0): what the batch
// path of the llama.cpp patch hands to ggml's TQ2_0 dot product.
func TestCodesToTQ2_0(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(93, 94))
	for _, tc := range []struct {
		k, rows int
		zs      []float64
	}{
		{256, 8, []float64{0, 0.3, 0.42, 0.52, 0.9, 1}},
		{2560, 16, []float64{0.30, 0.36, 0.44, 0.52}},
		{6912, 4, []float64{0.42}},
	} {
		t.Run(fmt.Sprintf("k%d", tc.k), func(t *testing.T) {
			m := makeRows(t, rng, tc.k, tc.rows, tc.zs, false)
			want := make([]byte, format.TQ2_0.TensorBytes(tc.k, tc.rows))
			if err := format.TQ2_0.Encode(m.p, &format.Scales{Group: QK_K, F16: m.d16}, want); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(want))
			ckern.CodesTQ2_0(tc.k, tc.rows, m.bitmap, m.signs, m.off, m.d16, got)
			if !bytes.Equal(got, want) {
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("byte %d (block %d) = %#02x, want %#02x", i, i/66, got[i], want[i])
					}
				}
			}
		})
	}
}
