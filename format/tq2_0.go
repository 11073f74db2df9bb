package format

import (
	"encoding/binary"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TQ2_0 is llama.cpp's 2-bit ternary layout (ggml type 35).
//
// Block of 256 weights, 66 bytes (ggml-common.h at the pin, block_tq2_0):
//
//	uint8_t qs[64]; ggml_half d;
//
// Element e of a block is byte (e/128)*32 + e%32, bits 2*((e%128)/32)+1:...;
// code 0/1/2 -> -1/0/+1 and the weight is (code-1)*d (dequantize_row_tq2_0;
// quantize_row_tq2_0_ref stores lroundf(x*id)+1, i.e. -1/0/+1 -> 0/1/2).
// Code 3 is representable and would decode as +2d: such a tensor is not
// ternary. Scales: Group 256, F16[i] = d of block i, row-major.
var TQ2_0 tq2_0Codec

var _ Codec = TQ2_0

type tq2_0Codec struct{}

const (
	tq2Elems = ggufx.QK_K
	tq2Bytes = 66
	tq2Chunk = 128 // blocks per Decode step (8.25 KiB of src)
)

func (tq2_0Codec) Name() string         { return "TQ2_0" }
func (tq2_0Codec) Type() ggufx.GGMLType { return ggufx.TypeTQ2_0 }
func (tq2_0Codec) Supports(k int) bool  { return k > 0 && k%tq2Elems == 0 }
func (tq2_0Codec) ScaleGroup() int      { return tq2Elems }
func (tq2_0Codec) Redundant() bool      { return false } // codes and d map one to one
func (tq2_0Codec) codeSpan() codeSpan   { return codeSpan{0, 64, tq2Bytes, tq2Elems, 64} }

// TensorBytes returns -1 for a shape the layout cannot hold.
func (tq2_0Codec) TensorBytes(k, rows int) int {
	n, ok := stockSize(k, rows, tq2Elems, tq2Bytes, 0)
	if !ok {
		return -1
	}
	return n
}

// Decode reads a TQ2_0 tensor. On a *NotTernaryError p and s are still filled
// (code 3 reads as +1).
// The codes go through decodeTQ2 (an assembly fast path on amd64,
// decode_amd64.go, or decodeTQ2Generic).
func (tq2_0Codec) Decode(src []byte, k, rows int, p *Planes, s *Scales) error {
	nb, err := checkDecode("TQ2_0", src, k, rows, tq2Elems, tq2Bytes, 0)
	if err != nil {
		return err
	}
	planesFor(p, k, rows)
	s.Group, s.F32, s.Tail = tq2Elems, 0, s.Tail[:0]
	s.F16 = resizeU16(s.F16, nb)
	// Chunks of blocks small enough that the scales are read from L1 just
	// after the codes: a separate pass would fetch every line of src again.
	bad := false
	for b0 := 0; b0 < nb; b0 += tq2Chunk {
		b1 := min(b0+tq2Chunk, nb)
		chunk := src[b0*tq2Bytes : b1*tq2Bytes]
		if decodeTQ2(p.Present[4*b0:4*b1], p.Neg[4*b0:4*b1], chunk) {
			bad = true
		}
		d := s.F16[b0:b1]
		for b := range d {
			d[b] = binary.LittleEndian.Uint16(chunk[b*tq2Bytes+64 : b*tq2Bytes+66])
		}
	}
	if !bad {
		return nil
	}
	for b := range nb {
		blk := src[b*tq2Bytes : b*tq2Bytes+64]
		if !hasCode3(blk) {
			continue
		}
		for e := range tq2Elems {
			if blk[e/128*32+e%32]>>(2*(e%128/32))&3 == 3 {
				return notTernaryAt(b*tq2Elems+e, k)
			}
		}
	}
	return nil
}

// decodeTQ2Generic is the pure-Go twin of decodeTQ2's fast path: it decodes
// the len(pres)/4 blocks at the start of src into pres and neg and reports
// whether some code is 3.
func decodeTQ2Generic(pres, neg []uint64, src []byte) bool {
	var bad uint64
	for b := range len(pres) / 4 {
		blk := (*[tq2Bytes]byte)(src[b*tq2Bytes : (b+1)*tq2Bytes])
		pw := (*[4]uint64)(pres[4*b : 4*b+4])
		nw := (*[4]uint64)(neg[4*b : 4*b+4])
		var bad0, bad1 uint64
		pw[0], pw[1], nw[0], nw[1], bad0 = decode128((*[32]byte)(blk[0:32]), false)
		pw[2], pw[3], nw[2], nw[3], bad1 = decode128((*[32]byte)(blk[32:64]), false)
		bad |= bad0 | bad1
	}
	return bad != 0
}

// hasCode3 reports whether the 2-bit codes in q (len(q) % 8 == 0, each code
// at an even bit offset of its byte, as in every 2-bit layout here) include
// a 3.
func hasCode3(q []byte) bool {
	for i := 0; i+8 <= len(q); i += 8 {
		w := binary.LittleEndian.Uint64(q[i:])
		if w&(w>>1)&0x5555555555555555 != 0 {
			return true
		}
	}
	return false
}

// Encode writes p and s as TQ2_0; the bytes are those quantize_row_tq2_0_ref
// writes for the same codes and scales.
func (tq2_0Codec) Encode(p *Planes, s *Scales, dst []byte) error {
	nb, err := checkEncode("TQ2_0", p, s, dst, tq2Elems, tq2Bytes, 0, tq2Elems)
	if err != nil {
		return err
	}
	for b := range nb {
		blk := (*[tq2Bytes]byte)(dst[b*tq2Bytes : (b+1)*tq2Bytes])
		pw := (*[4]uint64)(p.Present[4*b : 4*b+4])
		nw := (*[4]uint64)(p.Neg[4*b : 4*b+4])
		encode128((*[32]byte)(blk[0:32]), pw[0], pw[1], nw[0], nw[1], false)
		encode128((*[32]byte)(blk[32:64]), pw[2], pw[3], nw[2], nw[3], false)
		binary.LittleEndian.PutUint16(blk[64:66], s.F16[b])
	}
	return nil
}
