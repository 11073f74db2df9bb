package kernels

import (
	"math"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// QK_K is the number of weights per Q8_K block (and per BITCOS scale):
// ggufx.QK_K.
const QK_K = ggufx.QK_K

// BlockQ8K is ggml's block_q8_K (ggml-common.h): 292 bytes, the same layout
// as the C struct, so a []BlockQ8K can be handed to C as is.
type BlockQ8K struct {
	D     float32          // delta
	Qs    [QK_K]int8       // quants
	Bsums [QK_K / 16]int16 // sum of quants in groups of 16
}

// QuantizeQ8K quantizes len(x) (a multiple of QK_K) activations into
// len(x)/QK_K blocks of y, as quantize_row_q8_K_ref at the pinned llama.cpp
// (also what the x86 CPU backend uses): per block, max = the value of largest
// magnitude (the first one on ties), iscale = -127/max, q = min(127,
// nearest_int(iscale*x)), d = 1/iscale; an all-zero block gets d = 0 and zero
// quants. Every product and sum is rounded to float32 as in C without FMA
// contraction.
func QuantizeQ8K(x []float32, y []BlockQ8K) {
	if len(x)%QK_K != 0 || len(y) < len(x)/QK_K {
		panic("kernels: QuantizeQ8K: bad lengths")
	}
	for i := range len(x) / QK_K {
		xb := x[i*QK_K : (i+1)*QK_K]
		b := &y[i]
		var max, amax float32
		for _, v := range xb {
			ax := float32(math.Abs(float64(v)))
			if ax > amax {
				amax, max = ax, v
			}
		}
		if amax == 0 {
			*b = BlockQ8K{}
			continue
		}
		iscale := float32(-127) / max
		for j, v := range xb {
			q := format.NearestInt(float32(iscale * v))
			b.Qs[j] = int8(min(127, q))
		}
		for j := range QK_K / 16 {
			sum := 0
			for _, q := range b.Qs[j*16 : (j+1)*16] {
				sum += int(q)
			}
			b.Bsums[j] = int16(sum)
		}
		b.D = 1 / iscale
	}
}
