package kernels

import (
	"fmt"
	"math/big"

	"github.com/x448/float16"
)

// VecDotQ8KTQ2Order is BITCOS x Q8_K in the float order of ggml's x86 TQ2_0
// kernel as GCC builds it with FMA (c/bitcos_tq2order.c explains): 8 integer
// lanes per 256-block, L_m over the elements e with e%32 in [4m, 4m+4) of
// the TQ2_0 codes c = t+1, minus the block's bsums 2m and 2m+1; acc[m] =
// fma(L_m, y.d*d, acc[m]); then ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)).
func VecDotQ8KTQ2Order(bitmap, signs []byte, d16 []uint16, d32 float32, y []BlockQ8K) float32 {
	k := len(bitmap) * 8
	if k%QK_K != 0 || len(y) < k/QK_K || (d16 != nil && len(d16) < k/QK_K) {
		panic(fmt.Sprintf("kernels: VecDotQ8KTQ2Order: %d bitmap bytes, %d blocks, %d scales", len(bitmap), len(y), len(d16)))
	}
	pos := 0
	var acc [8]float32
	for b := range k / QK_K {
		q := &y[b].Qs
		var lane [8]int32
		for e := range QK_K {
			c := int32(1)
			if bitmap[b*QK_K/8+e/8]>>(e%8)&1 != 0 {
				c = 2
				if signs[pos>>3]>>(pos&7)&1 != 0 {
					c = 0
				}
				pos++
			}
			lane[(e%32)/4] += c * int32(q[e])
		}
		scale := d32
		if d16 != nil {
			scale = float16.Frombits(d16[b]).Float32()
		}
		d := y[b].D * scale
		for m := range 8 {
			lane[m] -= int32(y[b].Bsums[2*m]) + int32(y[b].Bsums[2*m+1])
			acc[m] = fma32(float32(lane[m]), d, acc[m])
		}
	}
	r0, r1, r2, r3 := acc[0]+acc[4], acc[1]+acc[5], acc[2]+acc[6], acc[3]+acc[7]
	return (r0 + r2) + (r1 + r3)
}

// fma32 is a*b+c with one rounding to float32 (exact arithmetic through
// math/big: rounding a float64 FMA to float32 would round twice).
func fma32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(256).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(256).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(256).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}
