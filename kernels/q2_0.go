package kernels

import (
	"fmt"
	"math"

	"github.com/x448/float16"
)

// BlockQ8_0 is ggml's block_q8_0 (ggml-common.h): 34 bytes, the same layout
// as the C struct (fp16 d, then 32 quants), so a []BlockQ8_0 can be handed to
// C as is. Q2_0's vec_dot_type.
type BlockQ8_0 struct {
	D  uint16 // fp16 delta
	Qs [32]int8
}

// QuantizeQ8_0 quantizes len(x) (a multiple of 32) activations into
// len(x)/32 blocks of y, as quantize_row_q8_0_ref at the pinned llama.cpp:
// per block d = amax/127, id = 1/d (0 when d is 0), q = roundf(x*id) (half
// away from zero), D = fp16(d).
func QuantizeQ8_0(x []float32, y []BlockQ8_0) {
	if len(x)%32 != 0 || len(y) < len(x)/32 {
		panic("kernels: QuantizeQ8_0: bad lengths")
	}
	for i := range len(x) / 32 {
		xb := x[32*i : 32*i+32]
		var amax float32
		for _, v := range xb {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := amax / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		y[i].D = float16.Fromfloat32(d).Bits()
		for j, v := range xb {
			y[i].Qs[j] = int8(math.Round(float64(float32(v * id))))
		}
	}
}

// VecDotQ2_0Q8_0 is the dot product of a row of Q2_0 blocks (18 bytes per 64
// weights: fp16 d, then weight j in bits 2*(j%4) of byte j/4 as the code
// t+1) with k/32 Q8_0 blocks, in the float order of ggml's
// ggml_vec_dot_q2_0_q8_0_generic and of the C yardstick c/bench/q2_0.c:
//
//	per block i: sum_k = exact int sum of (code-1)*q over half k (Q8_0 block 2i+k)
//	             sumi  = float32(sumi + float32(d8(2i+k) * float32(sum_k))), k = 0, 1, from 0
//	             sumf  = float32(sumf + float32(d2(i) * sumi))
func VecDotQ2_0Q8_0(x []byte, y []BlockQ8_0) float32 {
	nb := len(x) / 18
	if len(x)%18 != 0 || len(y) < 2*nb {
		panic(fmt.Sprintf("kernels: VecDotQ2_0Q8_0: %d block bytes, %d Q8_0 blocks", len(x), len(y)))
	}
	var sumf float32
	for i := range nb {
		b := x[18*i : 18*i+18]
		d2 := float16.Frombits(uint16(b[0]) | uint16(b[1])<<8).Float32()
		var sumi float32
		for k := range 2 {
			yb := &y[2*i+k]
			sum := 0
			for j := range 32 {
				code := int(b[2+8*k+j/4]>>(2*(j%4))) & 3
				sum += (code - 1) * int(yb.Qs[j])
			}
			sumi = float32(sumi + float32(float16.Frombits(yb.D).Float32()*float32(sum)))
		}
		sumf = float32(sumf + float32(d2*sumi))
	}
	return sumf
}
