package format

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// ErrNoCounter is returned by CountRowNonZeros for layouts it cannot count
// without decoding (TQ1_0): callers decode instead.
var ErrNoCounter = errors.New("format: no direct counter for this layout")

// codeCounter is implemented by the layouts whose weights are 2-bit codes
// (0/1/2 -> -1/0/+1, 3 invalid) in fixed places of fixed-size blocks, so
// that CountRowNonZeros can count them in place.
type codeCounter interface {
	codeSpan() codeSpan
}

// codeSpan places the codes and scales: each block of blockElems weights
// takes blockBytes bytes, of which bytes [off, off+len) hold the codes and
// the two at scaleOff its fp16 scale; scaleOff -1 means one f32 per tensor,
// right after the codes.
type codeSpan struct {
	off, len, blockBytes, blockElems, scaleOff int
}

// CountRowNonZeros counts the non-zero weights of every row of a stock
// tensor straight from its bytes, without decoding, for layouts that
// implement codeCounter (TQ2_0, Q2_0, I2_S); stats and the planning pass of
// a sharded repack need only these counts. In every such layout a weight is zero iff its
// code is 1 (bits 01) and invalid iff it is 3 (bits 11), whatever the field
// order, so a 64-bit word of codes has popcount(w &^ (w>>1) & 0x55..55)
// zeros. A tensor holding code 3 gets the exact *NotTernaryError its Decode
// reports; one with a NaN or infinite scale a *BadScaleError (CheckScales),
// the same as decoding and checking.
func CountRowNonZeros(c Codec, src []byte, k, rows int, dst []int) ([]int, error) {
	cc, ok := c.(codeCounter)
	if !ok {
		return dst, ErrNoCounter
	}
	span := cc.codeSpan()
	qsOff, qsLen, blockBytes, blockElems, scaleOff := span.off, span.len, span.blockBytes, span.blockElems, span.scaleOff
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
