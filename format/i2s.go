package format

import (
	"encoding/binary"
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// I2S is BitNet's I2_S layout as the default x86 build of bitnet.cpp writes it
// (BitNet fork type id 36; the official BitNet b1.58 2B4T GGUF).
//
// 2 bits per weight over the FLAT tensor (rows do not restart blocks), in
// blocks of 128 weights = 32 bytes: flat index f is byte (f/128)*32 + f%32,
// bits at shift 6 - 2*((f%128)/32); code 0/1/2 -> -1/0/+1. After the n/4
// weight bytes come 32 bytes: a little-endian f32 per-tensor scale, then 28
// bytes of padding that are not always zero (kept verbatim in Scales.Tail).
//
// Source: microsoft/BitNet src/ggml-bitnet-mad.cpp, quantize_i2_s (snapshot
// 16da220, lines 51-96; the same code at the initial commit 6cfd883). The
// ACT_PARALLEL branch, which include/gemm-config.h defines by default, is the
// x86 one: q8 = 1 if |x| < 1e-6, else 2 if x*scale > 0, else 0 (so 0 -> -1,
// 1 -> 0, 2 -> +1, per its "q8 -> 0, 1, 2 / -1, 0, 1" comment), then
// i2_weight[i*32 + j%32] |= q8[i*128 + j] << (6 - 2*(j/32)), and the f32
// scale at byte n/4; the function returns n/4 + 32. Its other x86 branch (a
// 4-row interleave) and the ARM build (QK_I2_S = 64, 16-byte groups) write
// different layouts that this codec does not read.
//
// Scales: Group 0, F32 = the scale's bits, Tail = the other 28 bytes.
var I2S i2sCodec

var _ Codec = I2S

type i2sCodec struct{}

const (
	i2sElems = 128
	i2sBytes = 32
	i2sTail  = 32 // f32 scale + 28 bytes
)

func (i2sCodec) Name() string         { return "I2_S" }
func (i2sCodec) Type() ggufx.GGMLType { return ggufx.TypeI2_S }

// Redundant: codes, the scale and the 28 tail bytes (Scales.Tail) map one
// to one.
func (i2sCodec) Redundant() bool    { return false }
func (i2sCodec) codeSpan() codeSpan { return codeSpan{0, i2sBytes, i2sBytes, i2sElems, -1} }

// Supports requires whole 128-weight blocks per row (the layout itself runs
// blocks over the flat tensor; this project only handles aligned rows).
func (i2sCodec) Supports(k int) bool { return k > 0 && k%i2sElems == 0 }
func (i2sCodec) ScaleGroup() int     { return 0 }

// TensorBytes is k*rows/4 + 32, or -1 for a shape the layout cannot hold.
func (i2sCodec) TensorBytes(k, rows int) int {
	n, ok := stockSize(k, rows, i2sElems, i2sBytes, i2sTail)
	if !ok {
		return -1
	}
	return n
}

// Decode reads an I2_S tensor. On a *NotTernaryError p and s are still
// filled (code 3 reads as +1).
// The codes go through decodeI2S (an assembly fast path on amd64,
// decode_amd64.go, or decodeI2SGeneric).
func (i2sCodec) Decode(src []byte, k, rows int, p *Planes, s *Scales) error {
	ng, err := checkDecode("I2_S", src, k, rows, i2sElems, i2sBytes, i2sTail)
	if err != nil {
		return err
	}
	planesFor(p, k, rows)
	tail := src[ng*i2sBytes:]
	s.Group, s.F16 = 0, s.F16[:0]
	s.F32 = binary.LittleEndian.Uint32(tail[0:4])
	s.Tail = append(s.Tail[:0], tail[4:i2sTail]...)
	if !decodeI2S(p.Present, p.Neg, src) {
		return nil
	}
	for g := range ng {
		q := src[g*i2sBytes : (g+1)*i2sBytes]
		if !hasCode3(q) {
			continue
		}
		for j := range i2sElems {
			if q[j%32]>>(6-2*(j/32))&3 == 3 {
				return notTernaryAt(g*i2sElems+j, k)
			}
		}
	}
	return nil
}

// decodeI2SGeneric is the pure-Go twin of decodeI2S's fast path: it decodes
// the len(pres)/2 groups of 128 weights at the start of src into pres and
// neg and reports whether some code is 3.
func decodeI2SGeneric(pres, neg []uint64, src []byte) bool {
	var bad uint64
	for g := range len(pres) / 2 {
		q := (*[i2sBytes]byte)(src[g*i2sBytes : (g+1)*i2sBytes])
		var b uint64
		pres[2*g], pres[2*g+1], neg[2*g], neg[2*g+1], b = decode128(q, true)
		bad |= b
	}
	return bad != 0
}

// Encode writes p and s as I2_S. s.Tail must be nil/empty (28 zero bytes are
// written) or exactly 28 bytes.
func (i2sCodec) Encode(p *Planes, s *Scales, dst []byte) error {
	ng, err := checkEncode("I2_S", p, s, dst, i2sElems, i2sBytes, i2sTail, 0)
	if err != nil {
		return err
	}
	if len(s.Tail) != 0 && len(s.Tail) != i2sTail-4 {
		return fmt.Errorf("format: I2_S tail holds %d bytes, want 0 or %d", len(s.Tail), i2sTail-4)
	}
	for g := range ng {
		q := (*[i2sBytes]byte)(dst[g*i2sBytes : (g+1)*i2sBytes])
		encode128(q, p.Present[2*g], p.Present[2*g+1], p.Neg[2*g], p.Neg[2*g+1], true)
	}
	tail := dst[ng*i2sBytes:]
	binary.LittleEndian.PutUint32(tail[0:4], s.F32)
	if len(s.Tail) == 0 {
		clear(tail[4:i2sTail])
	} else {
		copy(tail[4:i2sTail], s.Tail)
	}
	return nil
}
