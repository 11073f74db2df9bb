package format

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// ErrNoCounter is returned by CountRowNonZeros for layouts it cannot count
// without decoding (TQ1_0): callers decode instead.
var ErrNoCounter = errors.New("format: no direct counter for this layout")

// CountRowNonZeros counts the non-zero weights of every row of a 2-bit stock
// tensor (TQ2_0, Q2_0, I2_S) straight from its bytes, without decoding:
// repack's first pass needs only these counts to size its output. In all
// three layouts a weight is zero iff its code is 1 (bits 01) and invalid iff
// it is 3 (bits 11), whatever the field order, so a 64-bit word of codes has
// popcount(w &^ (w>>1) & 0x55..55) zeros. A tensor holding code 3 gets the
// exact *NotTernaryError its Decode reports.
func CountRowNonZeros(c Codec, src []byte, k, rows int, dst []int) ([]int, error) {
	var qsOff, qsLen, blockBytes, blockElems int
	switch c.(type) {
	case tq2_0Codec:
		qsOff, qsLen, blockBytes, blockElems = 0, 64, tq2Bytes, tq2Elems
	case q2_0Codec:
		qsOff, qsLen, blockBytes, blockElems = 2, 16, q2Bytes, q2Elems
	case i2sCodec:
		qsOff, qsLen, blockBytes, blockElems = 0, 32, 32, 128
	default:
		return dst, ErrNoCounter
	}
	if !c.Supports(k) || rows < 0 || len(src) != c.TensorBytes(k, rows) {
		var p Planes
		var s Scales
		return dst, c.Decode(src, k, rows, &p, &s) // its argument error
	}
	const lo = 0x5555555555555555
	perRow := k / blockElems
	dst = dst[:0]
	bad := uint64(0)
	for r := 0; r < rows; r++ {
		zeros := 0
		for b := r * perRow; b < (r+1)*perRow; b++ {
			qs := src[b*blockBytes+qsOff : b*blockBytes+qsOff+qsLen]
			for i := 0; i < qsLen; i += 8 {
				w := binary.LittleEndian.Uint64(qs[i:])
				zeros += bits.OnesCount64(w &^ (w >> 1) & lo)
				bad |= w & (w >> 1) & lo
			}
		}
		dst = append(dst, k-zeros)
	}
	if bad != 0 {
		var p Planes
		var s Scales
		return dst, c.Decode(src, k, rows, &p, &s)
	}
	return dst, nil
}
