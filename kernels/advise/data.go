package advise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels"
)

// Shape is one weight matrix: Rows rows of K weights (ggml's ne0 = K,
// ne1 = Rows); K is a multiple of 256 (Q8_K blocks).
type Shape struct {
	K    int `json:"k"`
	Rows int `json:"rows"`
}

func (s Shape) String() string { return fmt.Sprintf("%dx%d", s.K, s.Rows) }

// matrix is one weight matrix in both layouts, holding the same ternary
// values: BITCOS (bitmap, sign stream with its 8-byte zero tail, row offsets,
// fp16 scales per 256 or a per-tensor d32) and TQ2_0 blocks (with the same
// fp16 scales; a per-tensor BITCOS scale has none, then TQ2_0 gets fp16
// scales of its own: the speed does not depend on their values).
type matrix struct {
	Shape
	bitmap []byte
	signs  []byte
	off    []uint32
	d16    []uint16 // nil: d32
	d32    float32
	tq2    []byte
	tqd16  []uint16 // the TQ2_0 blocks' scales (for the check of results)
	// with d32: the f32 blocks the tq2_0 layout makes of these rows
	// (kernels/c/bitcos_layout.h: the TQ2_0 codes, then d32)
	tq2f32 []byte
}

// bitcosBytes counts what a BITCOS GEMV reads of m: bitmap, sign stream
// (tail included), row index and scales.
func (m *matrix) bitcosBytes() int {
	return len(m.bitmap) + len(m.signs) + 4*len(m.off) + 2*len(m.d16)
}

// genPlanes draws a ternary matrix with zero density z: each weight is zero
// with probability z (to 1/65536), else +1 or -1 with equal probability.
func genPlanes(rng *rand.Rand, s Shape, z float64) *format.Planes {
	p := &format.Planes{}
	p.Reset(s.K, s.Rows)
	thr := uint64(math.Round(z * 65536))
	for w := range p.Present {
		var pres uint64
		for q := 0; q < 64; q += 4 {
			r := rng.Uint64()
			for i := range 4 {
				if r>>(16*i)&0xffff >= thr {
					pres |= 1 << (q + i)
				}
			}
		}
		p.Present[w] = pres
		p.Neg[w] = pres & rng.Uint64()
	}
	return p
}

// genMatrix encodes fresh planes of shape s at zero density z in both
// layouts with the project's encoders (format.EncodeBitcos,
// format.TQ2_0.Encode).
func genMatrix(rng *rand.Rand, s Shape, z float64, fp16Scales bool) (*matrix, error) {
	if s.K <= 0 || s.K%256 != 0 || s.Rows <= 0 {
		return nil, fmt.Errorf("shape %v: rows of a multiple of 256 weights needed", s)
	}
	p := genPlanes(rng, s, z)
	off, err := format.BitcosRowOffsets(format.RowNonZeros(p, nil))
	if err != nil {
		return nil, err
	}
	m := &matrix{Shape: s, off: off}
	m.bitmap = make([]byte, format.BitcosBitmapBytes(s.K, s.Rows))
	m.signs = make([]byte, int(off[s.Rows])+format.SignTailBytes)
	if err := format.EncodeBitcos(p, off, m.bitmap, m.signs, make([]byte, 4*(s.Rows+1))); err != nil {
		return nil, err
	}
	d16 := make([]uint16, s.K/256*s.Rows)
	for i := range d16 {
		d16[i] = 0x2000 + uint16(rng.IntN(512)) // fp16 in [2^-7, 2^-6): normal, like trained scales
	}
	m.tq2 = make([]byte, format.TQ2_0.TensorBytes(s.K, s.Rows))
	if err := format.TQ2_0.Encode(p, &format.Scales{Group: 256, F16: d16}, m.tq2); err != nil {
		return nil, err
	}
	m.tqd16 = d16
	if fp16Scales {
		m.d16 = d16
	} else {
		m.d32 = 0.0123
		m.tq2f32 = kernels.F32Blocks(m.tq2, m.d32)
	}
	return m, nil
}

// clone copies m into fresh memory (a layer of the stack: the same values
// at other addresses, so no cache holds it when its turn comes).
func (m *matrix) clone() *matrix {
	c := *m
	c.bitmap = append([]byte(nil), m.bitmap...)
	c.signs = append([]byte(nil), m.signs...)
	c.off = append([]uint32(nil), m.off...)
	if m.d16 != nil {
		c.d16 = append([]uint16(nil), m.d16...)
	}
	c.tq2 = append([]byte(nil), m.tq2...)
	if m.tq2f32 != nil {
		c.tq2f32 = append([]byte(nil), m.tq2f32...)
	}
	c.tqd16 = nil
	return &c
}

// act is one Q8_K activation column of k values, quantized from normal
// random floats by kernels.QuantizeQ8K (ggml's quantize_row_q8_K_ref).
type act struct {
	y   []kernels.BlockQ8K
	ptr unsafe.Pointer
}

func newAct(rng *rand.Rand, k int) act {
	x := make([]float32, k)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]kernels.BlockQ8K, k/256)
	kernels.QuantizeQ8K(x, y)
	return act{y: y, ptr: unsafe.Pointer(&y[0])}
}
