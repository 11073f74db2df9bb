// Package format holds the weight layouts gguf-bitcos reads and writes: the
// stock ternary layouts of ggml and BitNet (TQ2_0, TQ1_0, Q2_0, I2_S), absmean
// ternarization of float masters, and the BITCOS codec (docs/FORMAT.md).
//
// Every codec converts between its byte layout and Planes, the bit-plane form
// of ternary rows. Planes are as compact as the 2-bit formats, so a whole
// tensor can be held in memory while it is transcoded, and comparing two
// decodes is a word compare: this is what "lossless" is checked against.
package format

import (
	"errors"
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Planes is the bit-plane form of a ternary matrix of Rows rows of K weights
// (K % 64 == 0). For weight j of row r, bit j%64 of word r*K/64 + j/64 of
// Present is set iff the weight is non-zero, and the same bit of Neg is set
// iff it is -1. Neg is never set where Present is clear.
//
// Little-endian, Present's bytes are exactly the BITCOS presence bitmap:
// weight j <-> byte j/8, bit j%8.
type Planes struct {
	K, Rows int
	Present []uint64
	Neg     []uint64
}

// WordsPerRow is K/64.
func (p *Planes) WordsPerRow() int { return p.K / 64 }

// Reset sizes p for rows x k weights, reusing its buffers when large enough,
// and clears them.
func (p *Planes) Reset(k, rows int) {
	if k%64 != 0 {
		panic(fmt.Sprintf("format: Planes row length %d is not a multiple of 64", k))
	}
	n := k / 64 * rows
	p.K, p.Rows = k, rows
	if cap(p.Present) < n {
		p.Present = make([]uint64, n)
		p.Neg = make([]uint64, n)
	} else {
		p.Present = p.Present[:n]
		p.Neg = p.Neg[:n]
		clear(p.Present)
		clear(p.Neg)
	}
}

// Value returns weight j of row r as -1, 0 or +1.
func (p *Planes) Value(r, j int) int8 {
	w := r*p.WordsPerRow() + j/64
	bit := uint64(1) << (j % 64)
	switch {
	case p.Present[w]&bit == 0:
		return 0
	case p.Neg[w]&bit != 0:
		return -1
	}
	return 1
}

// Set stores v (-1, 0 or +1) as weight j of row r.
func (p *Planes) Set(r, j int, v int8) {
	w := r*p.WordsPerRow() + j/64
	bit := uint64(1) << (j % 64)
	p.Present[w] &^= bit
	p.Neg[w] &^= bit
	switch v {
	case 1:
		p.Present[w] |= bit
	case -1:
		p.Present[w] |= bit
		p.Neg[w] |= bit
	}
}

// FirstDiff returns the first (row, element) at which a and b differ, or
// ok=false when they are equal. Shapes must match.
func FirstDiff(a, b *Planes) (row, elem int, ok bool) {
	if a.K != b.K || a.Rows != b.Rows {
		return 0, 0, true
	}
	wpr := a.WordsPerRow()
	for i := range a.Present {
		if d := (a.Present[i] ^ b.Present[i]) | (a.Neg[i] ^ b.Neg[i]); d != 0 {
			for j := 0; j < 64; j++ {
				if d&(1<<j) != 0 {
					return i / wpr, i%wpr*64 + j, true
				}
			}
		}
	}
	return 0, 0, false
}

// Scales are a tensor's scales, kept as raw bits so that they round-trip
// exactly.
//
// Group > 0: one fp16 scale per Group consecutive weights of a row; F16 holds
// Rows*K/Group values, row-major. Group == 0: one f32 per tensor, F32 holds its
// bits. Tail carries bytes a layout stores beside its scale that are not
// weights (I2_S: the 28 bytes after the f32 scale in its 32-byte tail), so that
// an unpack is byte-identical.
type Scales struct {
	Group int
	F16   []uint16
	F32   uint32
	Tail  []byte
}

// ErrNotTernary is wrapped by decoders when a tensor holds a code that is not
// -1, 0 or +1 (Q2_0, TQ2_0 and I2_S code 3). Such a tensor is kept as is.
var ErrNotTernary = errors.New("not ternary")

// NotTernaryError says where the first non-ternary code was found.
type NotTernaryError struct {
	Row, Elem int
	Code      int
}

func (e *NotTernaryError) Error() string {
	return fmt.Sprintf("row %d element %d holds code %d (not a ternary value)", e.Row, e.Elem, e.Code)
}

func (e *NotTernaryError) Unwrap() error { return ErrNotTernary }

// Codec converts one stock ternary layout to and from Planes + Scales.
// Decode and Encode work on a whole 2-D tensor of rows x k weights (higher
// dimensions are folded into rows) laid out as ggml stores it.
//
// A codec also declares what callers would otherwise decide by switching on
// its type: its ggml type id (the registry's key, registry.go), its scale
// group, and whether its bytes are redundant. A codec whose 2-bit codes can
// be counted in place also implements codeCounter (count.go).
type Codec interface {
	// Name is the ggml type name ("TQ2_0", "I2_S", ...).
	Name() string
	// Type is the ggml type id of this layout.
	Type() ggufx.GGMLType
	// Supports reports whether a row length k can be held (block multiples).
	Supports(k int) bool
	// TensorBytes is the exact byte size of a rows x k tensor.
	TensorBytes(k, rows int) int
	// ScaleGroup is the number of weights per scale, 0 for a per-tensor scale.
	ScaleGroup() int
	// Decode reads src (exactly TensorBytes(k, rows) long) into p and s, which
	// it resizes. It returns a *NotTernaryError for a code outside {-1,0,+1}
	// and another error for malformed input; it never panics on any bytes.
	Decode(src []byte, k, rows int, p *Planes, s *Scales) error
	// Encode writes p and s in this layout into dst (TensorBytes long).
	// Encode(Decode(x)) == x for every x this project writes itself; a file
	// written by another tool may hold non-canonical bytes (see Redundant).
	Encode(p *Planes, s *Scales, dst []byte) error
	// Redundant reports whether two different byte strings can decode to
	// the same codes and scales (TQ1_0: 256 byte values for 243 trit
	// patterns). Encode writes one of them, so a tensor written by another
	// tool may not re-encode to itself: a caller that must give the source
	// bytes back (repack, for a byte-identical unpack) compares a
	// re-encoding. A codec that says false promises Encode(Decode(x)) == x
	// for every x that Decode accepts (registry_test.go checks it).
	Redundant() bool
}
