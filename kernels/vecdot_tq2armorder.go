package kernels

import (
	"fmt"

	"github.com/x448/float16"
)

// VecDotQ8KTQ2ARMOrder is BITCOS x Q8_K in the float order of ggml's NEON
// TQ2_0 kernel (ggml_vec_dot_tq2_0_q8_K under __ARM_NEON, with or without
// dotprod; c/bitcos_neon_tq2.c explains): per 256-block b in order, the
// exact integer sumi_b = sum of t_e*q_e, then
//
//	sumf = fma(float32(sumi_b), y[b].D*d_b, sumf)
//
// with one rounding, as GCC and clang contract ggml's `sumf += d * (float)
// sumi` into fmadd on aarch64. It is VecDotQ8K with the multiply and the add
// fused: the two agree on one block and differ in the last bits otherwise.
func VecDotQ8KTQ2ARMOrder(bitmap, signs []byte, d16 []uint16, d32 float32, y []BlockQ8K) float32 {
	k := len(bitmap) * 8
	if k%QK_K != 0 || len(y) < k/QK_K || (d16 != nil && len(d16) < k/QK_K) {
		panic(fmt.Sprintf("kernels: VecDotQ8KTQ2ARMOrder: %d bitmap bytes, %d blocks, %d scales", len(bitmap), len(y), len(d16)))
	}
	pos := 0 // next sign bit
	var sumf float32
	for b := range k / QK_K {
		q := &y[b].Qs
		var sumi int32
		for e := range QK_K {
			if bitmap[b*QK_K/8+e/8]>>(e%8)&1 == 0 {
				continue
			}
			v := int32(q[e])
			if signs[pos>>3]>>(pos&7)&1 != 0 {
				v = -v
			}
			sumi += v
			pos++
		}
		scale := d32
		if d16 != nil {
			scale = float16.Frombits(d16[b]).Float32()
		}
		sumf = fma32(float32(sumi), y[b].D*scale, sumf)
	}
	return sumf
}
