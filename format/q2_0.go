package format

import (
	"encoding/binary"
	"math/bits"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Q2_0 is llama.cpp's Q2_0 layout (ggml type 42).
//
// Block of 64 weights, 18 bytes (ggml-common.h at the pin, block_q2_0, with
// its static_assert sizeof == sizeof(ggml_half) + QK2_0/4):
//
//	ggml_half d; uint8_t qs[16];
//
// Element j is qs[j/4] >> 2*(j%4) & 3, i.e. bits 2j+1:2j of qs read as a
// little-endian bit string; the weight is (code-1)*d, so code 0/1/2 -> -1/0/+1
// and code 3 is +2d (dequantize_row_q2_0; quantize_row_q2_0_ref clamps to
// [-1, 2] and writes code 3 where round(x/amax) == 2, which cannot happen for
// |x| <= amax but the format allows it). A tensor holding code 3 is not
// ternary. Scales: Group 64, F16[i] = d of block i, row-major.
var Q2_0 q2_0Codec

var _ Codec = Q2_0

type q2_0Codec struct{}

const (
	q2Elems = 64
	q2Bytes = 18
	q2Chunk = 512 // blocks per Decode step (9 KiB of src)
)

func (q2_0Codec) Name() string         { return "Q2_0" }
func (q2_0Codec) Type() ggufx.GGMLType { return ggufx.TypeQ2_0 }
func (q2_0Codec) Supports(k int) bool  { return k > 0 && k%q2Elems == 0 }
func (q2_0Codec) ScaleGroup() int      { return q2Elems }
func (q2_0Codec) Redundant() bool      { return false } // codes and d map one to one
func (q2_0Codec) codeSpan() codeSpan   { return codeSpan{2, 16, q2Bytes, q2Elems, 0} }

// TensorBytes returns -1 for a shape the layout cannot hold.
func (q2_0Codec) TensorBytes(k, rows int) int {
	n, ok := stockSize(k, rows, q2Elems, q2Bytes, 0)
	if !ok {
		return -1
	}
	return n
}

// Decode reads a Q2_0 tensor. On a *NotTernaryError p and s are still filled
// (code 3 reads as +1). The codes go through decodeQ2 (an assembly fast path
// on amd64, decode_amd64.go, or decodeQ2Generic).
func (q2_0Codec) Decode(src []byte, k, rows int, p *Planes, s *Scales) error {
	nb, err := checkDecode("Q2_0", src, k, rows, q2Elems, q2Bytes, 0)
	if err != nil {
		return err
	}
	planesFor(p, k, rows)
	s.Group, s.F32, s.Tail = q2Elems, 0, s.Tail[:0]
	s.F16 = resizeU16(s.F16, nb)
	// Chunks of blocks small enough that the scales are read from L1 just
	// after the codes: a separate pass would fetch every line of src again.
	bad := false
	for b0 := 0; b0 < nb; b0 += q2Chunk {
		b1 := min(b0+q2Chunk, nb)
		chunk := src[b0*q2Bytes : b1*q2Bytes]
		if decodeQ2(p.Present[b0:b1], p.Neg[b0:b1], chunk) {
			bad = true
		}
		d := s.F16[b0:b1]
		for b := range d {
			d[b] = binary.LittleEndian.Uint16(chunk[b*q2Bytes : b*q2Bytes+2])
		}
	}
	if !bad {
		return nil
	}
	for b := range nb {
		blk := src[b*q2Bytes : (b+1)*q2Bytes]
		for h := range 2 {
			w := binary.LittleEndian.Uint64(blk[2+8*h : 10+8*h])
			if bad := w & (w >> 1) & 0x5555555555555555; bad != 0 {
				return notTernaryAt(b*q2Elems+32*h+bits.TrailingZeros64(bad)/2, k)
			}
		}
	}
	return nil
}

// decodeQ2Generic is the pure-Go twin of decodeQ2's fast path: it decodes
// the len(pres) blocks at the start of src into pres and neg and reports
// whether some code is 3.
//
// A block's 16 code bytes are two little-endian words of 32 codes each, code
// j at bits 2j+1:2j. An outer perfect unshuffle (Hacker's Delight 7-2, five
// delta swaps) sends the even bits (bit 0 of every code) of a word to its low
// half and the odd bits to its high half, keeping their order; so the two
// words give the block's bit-0 and bit-1 planes in element order, and the
// Planes word follows by plain word logic (see twobit.go). Encode runs the
// same swaps in reverse order (the perfect shuffle). (The BMI2 path does the
// unshuffle with pext and the even/odd bit masks.)
func decodeQ2Generic(pres, neg []uint64, src []byte) bool {
	nb := len(pres)
	neg = neg[:nb]
	var bad uint64
	for b := range nb {
		blk := (*[q2Bytes]byte)(src[b*q2Bytes : (b+1)*q2Bytes])
		// Unshuffle both code words; the delta swaps are written out so that
		// they inline and the two words interleave.
		u0 := binary.LittleEndian.Uint64(blk[2:10])
		u1 := binary.LittleEndian.Uint64(blk[10:18])
		u0, u1 = deltaSwap(u0, 0x2222222222222222, 1), deltaSwap(u1, 0x2222222222222222, 1)
		u0, u1 = deltaSwap(u0, 0x0c0c0c0c0c0c0c0c, 2), deltaSwap(u1, 0x0c0c0c0c0c0c0c0c, 2)
		u0, u1 = deltaSwap(u0, 0x00f000f000f000f0, 4), deltaSwap(u1, 0x00f000f000f000f0, 4)
		u0, u1 = deltaSwap(u0, 0x0000ff000000ff00, 8), deltaSwap(u1, 0x0000ff000000ff00, 8)
		u0, u1 = deltaSwap(u0, 0x00000000ffff0000, 16), deltaSwap(u1, 0x00000000ffff0000, 16)
		b0 := u0&0xffffffff | u1<<32
		b1 := u0>>32 | u1&0xffffffff00000000
		pres[b] = b1 | ^b0
		neg[b] = ^(b1 | b0)
		bad |= b1 & b0
	}
	return bad != 0
}

// Encode writes p and s as Q2_0; the code bytes are those
// quantize_row_q2_0_ref writes for the same codes.
func (q2_0Codec) Encode(p *Planes, s *Scales, dst []byte) error {
	nb, err := checkEncode("Q2_0", p, s, dst, q2Elems, q2Bytes, 0, q2Elems)
	if err != nil {
		return err
	}
	pres, neg, d := p.Present[:nb], p.Neg[:nb], s.F16[:nb]
	for b := range nb {
		blk := (*[q2Bytes]byte)(dst[b*q2Bytes : (b+1)*q2Bytes])
		b0 := ^pres[b]
		b1 := pres[b] &^ neg[b]
		binary.LittleEndian.PutUint16(blk[0:2], d[b])
		// Shuffle both words: Decode's delta swaps in reverse order.
		u0, u1 := b0&0xffffffff|b1<<32, b0>>32|b1&0xffffffff00000000
		u0, u1 = deltaSwap(u0, 0x00000000ffff0000, 16), deltaSwap(u1, 0x00000000ffff0000, 16)
		u0, u1 = deltaSwap(u0, 0x0000ff000000ff00, 8), deltaSwap(u1, 0x0000ff000000ff00, 8)
		u0, u1 = deltaSwap(u0, 0x00f000f000f000f0, 4), deltaSwap(u1, 0x00f000f000f000f0, 4)
		u0, u1 = deltaSwap(u0, 0x0c0c0c0c0c0c0c0c, 2), deltaSwap(u1, 0x0c0c0c0c0c0c0c0c, 2)
		u0, u1 = deltaSwap(u0, 0x2222222222222222, 1), deltaSwap(u1, 0x2222222222222222, 1)
		binary.LittleEndian.PutUint64(blk[2:10], u0)
		binary.LittleEndian.PutUint64(blk[10:18], u1)
	}
	return nil
}
