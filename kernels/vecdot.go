package kernels

import (
	"fmt"

	"github.com/x448/float16"
)

// VecDotQ8K is the reference BITCOS x Q8_K dot product of one row with one
// activation column (kernels/c/bitcos.h has the contract):
//
//	bitmap: the row's K/8 presence bytes (weight j = bit j%8 of byte j/8)
//	signs:  the row's sign stream, one bit per non-zero weight, LSB first,
//	        1 = negative (it may run past the row; only its bits are read)
//	d16:    the row's fp16 scales, one per 256 weights, or nil
//	d32:    the per-tensor scale, used when d16 is nil
//	y:      K/256 Q8_K blocks
//
// With t_j in {-1, 0, +1}, for each 256-block b in order:
//
//	sumi_b = exact int32 sum of t_j * y[b].Qs[j]
//	d      = y[b].D * fp16(d16[b])   (or y[b].D * d32)
//	sumf   = sumf + float32(float32(sumi_b) * d)
//
// i.e. ggml_vec_dot_tq2_0_q8_K_generic's float steps without FMA
// contraction (the explicit float32 conversion stops Go from fusing the
// multiply into the add). Every C variant must return the same bits for
// activations in -127..127 (what QuantizeQ8K produces).
func VecDotQ8K(bitmap, signs []byte, d16 []uint16, d32 float32, y []BlockQ8K) float32 {
	var sumf float32
	exactBlocks("VecDotQ8K", bitmap, signs, d16, d32, y, func(sumi int32, d float32) {
		sumf += float32(float32(sumi) * d)
	})
	return sumf
}

// exactBlocks walks a row's 256-blocks in order and hands each block's exact
// int32 sum of t_j * y[b].Qs[j] and its d = y[b].D * scale to step: the part
// every reference order shares (the orders differ only in step's float
// arithmetic).
func exactBlocks(who string, bitmap, signs []byte, d16 []uint16, d32 float32, y []BlockQ8K, step func(sumi int32, d float32)) {
	k := len(bitmap) * 8
	if k%QK_K != 0 || len(y) < k/QK_K || (d16 != nil && len(d16) < k/QK_K) {
		panic(fmt.Sprintf("kernels: %s: %d bitmap bytes, %d blocks, %d scales", who, len(bitmap), len(y), len(d16)))
	}
	pos := 0 // next sign bit
	for b := range k / QK_K {
		q := &y[b].Qs
		var sumi int32
		for i, m := range bitmap[b*QK_K/8 : (b+1)*QK_K/8] {
			for bit := range 8 {
				if m>>bit&1 == 0 {
					continue
				}
				v := int32(q[8*i+bit])
				if signs[pos>>3]>>(pos&7)&1 != 0 {
					v = -v
				}
				sumi += v
				pos++
			}
		}
		scale := d32
		if d16 != nil {
			scale = float16.Frombits(d16[b]).Float32()
		}
		step(sumi, y[b].D*scale)
	}
}
