package kernels

import (
	"fmt"

	"github.com/x448/float16"
)

// DequantizeRow is the reference decode of one BITCOS row to float
// (kernels/c/bitcos_dequant.c is its C twin, GET_ROWS in llama.cpp): with
// t_j in {-1, 0, +1} and d_b the scale of j's block of group weights (fp16
// d16[b]: group 256 for TQ2_0 sources, 64 for Q2_0 ones), or d32 when d16 is
// nil,
//
//	out[j] = float32(t_j) * d_b
//
// one rounded multiply, as ggml's dequantize_row_tq2_0 computes
// (float)(q-1) * d: a repack of a TQ2_0 tensor decodes to the same bits,
// including -0 for a zero weight under a negative scale.
func DequantizeRow(bitmap, signs []byte, d16 []uint16, group int, d32 float32, out []float32) {
	k := len(bitmap) * 8
	if k%QK_K != 0 || len(out) < k || (d16 != nil && ((group != QK_K && group != 64) || len(d16) < k/group)) {
		panic(fmt.Sprintf("kernels: DequantizeRow: %d bitmap bytes, %d outputs, %d scales per %d", len(bitmap), len(out), len(d16), group))
	}
	pos := 0 // next sign bit
	for j := range k {
		d := d32
		if d16 != nil {
			d = float16.Frombits(d16[j/group]).Float32()
		}
		var t float32
		if bitmap[j>>3]>>(j&7)&1 != 0 {
			t = 1
			if signs[pos>>3]>>(pos&7)&1 != 0 {
				t = -1
			}
			pos++
		}
		out[j] = t * d
	}
}
