package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// TestQ2_0Yardstick: the C yardstick of Q2_0 sources (c/bench/q2_0.c, what
// advise times for them) equals VecDotQ2_0Q8_0 bit for bit on Q2_0 blocks from
// the Go encoder (fp16 scales per 64 with zeros and subnormals), and so does
// the native layout's product (each BITCOS row decoded into Q2_0 blocks by
// bitcos_row_to_q2_0, then the same dot product), at row lengths 256..8192
// and zero densities 0..0.6, with all-zero rows and all-zero Q8_0 blocks.
func TestQ2_0Yardstick(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(38, 64))
	dots := 0
	for _, k := range []int{256, 512, 768, 2560, 8192} {
		for _, z := range []float64{0, 0.3, 0.6} {
			const rows = 5
			m := makeRows64(t, rng, k, rows, []float64{z, 1, z})
			q2 := make([]byte, format.Q2_0.TensorBytes(k, rows))
			if err := format.Q2_0.Encode(m.p, &format.Scales{Group: 64, F16: m.d16}, q2); err != nil {
				t.Fatal(err)
			}
			x := make([]float32, k)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
				if i/32%7 == 3 {
					x[i] = 0 // an all-zero Q8_0 block now and then
				}
			}
			y := make([]BlockQ8_0, k/32)
			QuantizeQ8_0(x, y)
			yp := unsafe.Pointer(&y[0])
			blocks, native := make([]float32, rows), make([]float32, rows)
			ckern.Q2_0GEMV(k, rows, q2, yp, blocks)
			ckern.BitcosQ2_0GEMV(k, rows, m.bitmap, m.signs, m.off, m.d16, yp, native)
			row := k / 64 * 18
			for r := range rows {
				want := VecDotQ2_0Q8_0(q2[r*row:(r+1)*row], y)
				for _, c := range []struct {
					name string
					got  float32
				}{{"Q2_0 blocks", blocks[r]}, {"native (decoded per row)", native[r]}} {
					if math.Float32bits(c.got) != math.Float32bits(want) {
						t.Fatalf("k=%d z=%v row %d: %s %v (%#x), VecDotQ2_0Q8_0 %v (%#x)", k, z, r, c.name, c.got,
							math.Float32bits(c.got), want, math.Float32bits(want))
					}
				}
				dots++
			}
		}
	}
	t.Logf("%d dot products bit-exact (Q2_0 blocks and BITCOS rows decoded into them)", dots)
}

// TestQuantizeQ8_0: quantize_row_q8_0_ref's rule on a few hand-made blocks.
func TestQuantizeQ8_0(t *testing.T) {
	x := make([]float32, 64)
	for i := range 32 {
		x[i] = float32(i - 16) // amax 16: d = 16/127, q = round(x*127/16)
	}
	y := make([]BlockQ8_0, 2)
	QuantizeQ8_0(x, y)
	if y[0].Qs[0] != -127 || y[0].Qs[16] != 0 || y[0].Qs[31] != int8(math.Round(float64(float32(15*float32(1/(float32(16)/127)))))) {
		t.Errorf("block 0: %v", y[0].Qs)
	}
	if y[1].D != 0 || y[1].Qs != [32]int8{} {
		t.Errorf("an all-zero block: d %#x, qs %v", y[1].D, y[1].Qs)
	}
}
