package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/x448/float16"
)

// testRows is a BITCOS-encoded matrix with its source planes and scales.
type testRows struct {
	k, rows int
	p       *format.Planes
	bitmap  []byte   // rows * k/8
	signs   []byte   // off[rows] + 8 (zero tail)
	off     []uint32 // rows + 1
	d16     []uint16 // rows * k/group, or nil (then d32)
	group   int      // weights per d16 scale: 256 (0 reads as 256) or 64 (the rows of a Q2_0 source; the CUDA harness only)
	d32     float32
	tq2     []byte // the rows as a converted weight holds them (c/bitcos_layout.h): TQ2_0 blocks (format.TQ2_0), rows * k/256 * 66 bytes, or with d32 f32 blocks (68)
}

// termBound is the sum over row r's blocks of the largest |term| a block's
// dot product can hold, |y.D * scale| * 256 * 127: what two float orders of
// the same exact sums may differ by is a small multiple of it.
func (m *testRows) termBound(r int, y []BlockQ8K) float64 {
	var bound float64
	for b := range m.k / QK_K {
		scale := m.d32
		if m.d16 != nil {
			scale = f16(m.d16[r*m.k/QK_K+b])
		}
		bound += math.Abs(float64(y[b].D)*float64(scale)) * 256 * 127
	}
	return bound
}

func (m *testRows) rowBitmap(r int) []byte { return m.bitmap[r*m.k/8 : (r+1)*m.k/8] }
func (m *testRows) rowSigns(r int) []byte  { return m.signs[m.off[r]:] }
func (m *testRows) rowScales(r int) []uint16 {
	if m.d16 == nil {
		return nil
	}
	n := m.k / m.scaleGroup()
	return m.d16[r*n : (r+1)*n]
}

// scaleGroup: the weights per d16 scale.
func (m *testRows) scaleGroup() int {
	if m.group == 0 {
		return QK_K
	}
	return m.group
}

// randomPlanes gives every row its own zero density from zs (cycled).
func randomPlanes(rng *rand.Rand, k, rows int, zs []float64) *format.Planes {
	p := &format.Planes{}
	p.Reset(k, rows)
	for r := range rows {
		z := zs[r%len(zs)]
		for j := range k {
			if rng.Float64() >= z {
				v := int8(1)
				if rng.IntN(2) == 0 {
					v = -1
				}
				p.Set(r, j, v)
			}
		}
	}
	return p
}

// encodeRows runs the real encoder (format.EncodeBitcos) on p.
func encodeRows(t testing.TB, p *format.Planes) (bitmap, signs []byte, off []uint32) {
	t.Helper()
	off, err := format.BitcosRowOffsets(format.RowNonZeros(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	bitmap = make([]byte, format.BitcosBitmapBytes(p.K, p.Rows))
	signs = make([]byte, int(off[p.Rows])+format.SignTailBytes)
	index := make([]byte, 4*(p.Rows+1))
	if err := format.EncodeBitcos(p, off, bitmap, signs, index); err != nil {
		t.Fatal(err)
	}
	return bitmap, signs, off
}

// randomScales: fp16 scales of mixed sizes and signs, with zeros (+0, -0) and
// subnormals now and then; never inf or nan.
func randomScales(rng *rand.Rand, n int) []uint16 {
	d := make([]uint16, n)
	for i := range d {
		switch rng.IntN(16) {
		case 0:
			d[i] = 0
		case 1:
			d[i] = 0x8000
		case 2:
			d[i] = uint16(1 + rng.IntN(0x3ff)) // subnormal
		default:
			f := float32(math.Exp(rng.Float64()*8 - 7))
			if rng.IntN(4) == 0 {
				f = -f
			}
			d[i] = float16.Fromfloat32(f).Bits()
		}
	}
	return d
}

func makeRows(t testing.TB, rng *rand.Rand, k, rows int, zs []float64, perTensor bool) *testRows {
	p := randomPlanes(rng, k, rows, zs)
	bitmap, signs, off := encodeRows(t, p)
	m := &testRows{k: k, rows: rows, p: p, bitmap: bitmap, signs: signs, off: off}
	d16 := make([]uint16, rows*k/QK_K) // the codes of f32 blocks come from TQ2_0 blocks of any scales
	if perTensor {
		m.d32 = float32(rng.Float64()*0.1 + 1e-4)
	} else {
		m.d16 = randomScales(rng, rows*k/QK_K)
		d16 = m.d16
	}
	m.tq2 = make([]byte, rows*k/QK_K*66)
	if err := format.TQ2_0.Encode(p, &format.Scales{Group: QK_K, F16: d16}, m.tq2); err != nil {
		t.Fatal(err)
	}
	if perTensor {
		m.tq2 = F32Blocks(m.tq2, m.d32)
	}
	return m
}

// makeRows64: rows as makeRows makes them, with fp16 scales per 64 weights
// (the grouping of a Q2_0 source) and no TQ2_0 form (TQ2_0 holds one scale
// per 256).
func makeRows64(t testing.TB, rng *rand.Rand, k, rows int, zs []float64) *testRows {
	p := randomPlanes(rng, k, rows, zs)
	bitmap, signs, off := encodeRows(t, p)
	return &testRows{k: k, rows: rows, p: p, bitmap: bitmap, signs: signs, off: off, d16: randomScales(rng, rows*k/64), group: 64}
}

// randomActivations: Q8_K blocks from QuantizeQ8K of floats of varying
// spread (a zero block now and then), or, with raw, quants drawn uniformly
// from -127..127 with a random d of either sign.
func randomActivations(rng *rand.Rand, k int, raw bool) []BlockQ8K {
	y := make([]BlockQ8K, k/QK_K)
	if raw {
		for b := range y {
			y[b].D = float32(rng.NormFloat64() * 0.05)
			for j := range y[b].Qs {
				y[b].Qs[j] = int8(rng.IntN(255) - 127)
			}
			for g := range y[b].Bsums {
				s := 0
				for _, q := range y[b].Qs[16*g : 16*g+16] {
					s += int(q)
				}
				y[b].Bsums[g] = int16(s)
			}
		}
		return y
	}
	x := make([]float32, k)
	for b := range k / QK_K {
		if rng.IntN(9) == 0 {
			continue // all-zero block: d = 0
		}
		scale := math.Exp(rng.Float64()*10 - 5)
		for j := range QK_K {
			x[b*QK_K+j] = float32(rng.NormFloat64() * scale)
		}
	}
	QuantizeQ8K(x, y)
	return y
}

// naiveDot computes the reference numerics straight from the planes.
func naiveDot(p *format.Planes, r int, d16 []uint16, d32 float32, y []BlockQ8K) float32 {
	var sumf float32
	for b := range p.K / QK_K {
		var sumi int32
		for j := range QK_K {
			sumi += int32(p.Value(r, b*QK_K+j)) * int32(y[b].Qs[j])
		}
		scale := d32
		if d16 != nil {
			scale = float16.Frombits(d16[b]).Float32()
		}
		d := y[b].D * scale
		sumf += float32(float32(sumi) * d)
	}
	return sumf
}

var testKs = []int{256, 2560, 6912}

// testZs: real zero densities, then the edges: dense, all-zero, very sparse.
var testZs = []float64{0.3, 0.42, 0.52, 0.37, 0.47, 0, 1, 0.9, 0.33, 0.5}
