package kernels

import (
	"encoding/binary"
	"math"
)

// F32Blocks turns TQ2_0 blocks (66 bytes per 256 weights: qs[64], fp16 d)
// into the f32 blocks of the load-time layout (c/bitcos_layout.h: the same
// 64 code bytes, then d32's bits in place of the fp16 d; 68 bytes), as
// bitcos_to_tq2_0 writes them for a weight with a per-tensor f32 scale.
func F32Blocks(tq2 []byte, d32 float32) []byte {
	out := make([]byte, 0, len(tq2)/66*68)
	for b := 0; b+66 <= len(tq2); b += 66 {
		out = append(out, tq2[b:b+64]...)
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(d32))
	}
	return out
}
