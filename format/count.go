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
// exact *NotTernaryError its Decode reports; one with a NaN or infinite
// scale a *BadScaleError (CheckScales), the same as decoding and checking.
func CountRowNonZeros(c Codec, src []byte, k, rows int, dst []int) ([]int, error) {
	// scaleOff: where a block's fp16 scale is; -1: one f32 after the codes.
	var qsOff, qsLen, blockBytes, blockElems, scaleOff int
	switch c.(type) {
	case tq2_0Codec:
		qsOff, qsLen, blockBytes, blockElems, scaleOff = 0, 64, tq2Bytes, tq2Elems, 64
	case q2_0Codec:
		qsOff, qsLen, blockBytes, blockElems, scaleOff = 2, 16, q2Bytes, q2Elems, 0
	case i2sCodec:
		qsOff, qsLen, blockBytes, blockElems, scaleOff = 0, 32, 32, 128, -1
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
	var bad uint64
	// zeros and code-3 flags of n little-endian words at q (n*8 bytes).
	count := func(q []byte) int {
		z := 0
		for len(q) >= 16 {
			w0 := binary.LittleEndian.Uint64(q)
			w1 := binary.LittleEndian.Uint64(q[8:])
			z += bits.OnesCount64(w0&^(w0>>1)&lo) + bits.OnesCount64(w1&^(w1>>1)&lo)
			bad |= (w0 & (w0 >> 1)) | (w1 & (w1 >> 1))
			q = q[16:]
		}
		return z
	}
	if blockBytes == qsLen { // I2_S: a row's codes are contiguous
		rowBytes := k / 4
		for r := 0; r < rows; r++ {
			dst = append(dst, k-count(src[r*rowBytes:(r+1)*rowBytes]))
		}
	} else {
		for r := 0; r < rows; r++ {
			zeros := 0
			row := src[r*perRow*blockBytes : (r+1)*perRow*blockBytes]
			for len(row) >= blockBytes {
				zeros += count(row[qsOff : qsOff+qsLen])
				row = row[blockBytes:]
			}
			dst = append(dst, k-zeros)
		}
	}
	bad &= lo
	if bad != 0 {
		var p Planes
		var s Scales
		return dst, c.Decode(src, k, rows, &p, &s)
	}
	if scaleOff < 0 {
		return dst, checkF32(binary.LittleEndian.Uint32(src[rows*k/4:]))
	}
	for j := 0; j < rows*perRow; j++ {
		if err := checkF16(j, binary.LittleEndian.Uint16(src[j*blockBytes+scaleOff:])); err != nil {
			return dst, err
		}
	}
	return dst, nil
}
