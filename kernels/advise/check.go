package advise

import (
	"fmt"
	"math"

	"github.com/gguf-bitcos/gguf-bitcos/kernels"
)

// The checks of results Run makes before it times anything.

// check runs k on the first rows of m and compares with the Go reference
// of its float order, bit for bit (a BITCOS kernel on m's BITCOS rows, a
// TQ2_0 kernel on the same values with the TQ2_0 blocks' scales), or, for
// the -O2 TQ2_0 build (orderNone), within a bound of the exact sums. It
// catches a kernel that ran on the wrong data; the kernels' own tests check
// their exactness.
func check(k kernel, m *matrix, y act) error {
	rows := min(m.Rows, 4)
	out := make([]float32, rows)
	k.run(m, 0, rows, y.ptr, out)
	for r := range rows {
		if err := compare(k.Name, k.order, k.TQ2 && !k.F32, m, r, y.y, out[r]); err != nil {
			return err
		}
	}
	return nil
}

// compare checks got, what kernel name computed for row r of m times
// column y, against the Go reference of float order order, bit for bit, or
// within a bound of the exact sums for orderNone: on m's BITCOS rows with
// their scales, or, with tq2Scales, with the TQ2_0 blocks' fp16 scales (a
// kernel of TQ2_0 blocks; f32 blocks carry the BITCOS rows' d32).
func compare(name string, order int, tq2Scales bool, m *matrix, r int, y []kernels.BlockQ8K, got float32) error {
	bm := m.bitmap[r*m.K/8 : (r+1)*m.K/8]
	sg := m.signs[m.off[r]:]
	var d16 []uint16
	d32 := m.d32
	if tq2Scales {
		d16, d32 = m.tqd16[r*m.K/256:(r+1)*m.K/256], 0
	} else if m.d16 != nil {
		d16 = m.d16[r*m.K/256 : (r+1)*m.K/256]
	}
	var want float32
	switch order {
	case orderExact, orderNone:
		want = kernels.VecDotQ8K(bm, sg, d16, d32, y)
	case orderTQ2X86:
		want = kernels.VecDotQ8KTQ2Order(bm, sg, d16, d32, y)
	case orderTQ2ARM:
		want = kernels.VecDotQ8KTQ2ARMOrder(bm, sg, d16, d32, y)
	default:
		return fmt.Errorf("%s: unknown float order %d", name, order)
	}
	if order == orderNone {
		bound := 0.0
		for b := range m.K / 256 {
			bound += math.Abs(float64(y[b].D)) * 256 * 127 * 0.016 // |scale| < 2^-6
		}
		if math.Abs(float64(got)-float64(want)) > 1e-5*bound {
			return fmt.Errorf("%s row %d of %v: %g, reference %g", name, r, m.Shape, got, want)
		}
	} else if math.Float32bits(got) != math.Float32bits(want) {
		return fmt.Errorf("%s row %d of %v: %g, reference %g (not bit-identical)", name, r, m.Shape, got, want)
	}
	return nil
}

// The C enum bitcos_order.
const (
	orderExact  = 0
	orderTQ2X86 = 1
	orderTQ2ARM = 2
	orderNone   = -1 // no Go reference of its order: checked within a bound
)

// sameBits runs a and b, two kernels of TQ2_0 blocks in the same float
// order (the tq2_0 layout's VNNI kernel and the TQ2_0 file's kernel, ggml's
// -O3 FMA build), on every row of m and compares their outputs bit for bit:
// the layout is measured on exactly the values the file's kernel computes,
// as patch 0011 promises (bit-identical to the TQ2_0 file). The float order
// both follow is TQ2_0's x86 one, kernels.VecDotQ8KTQ2Order: per block the
// integer dot of codes (0..2) and q8 minus 1 x the q8 sums, times x's fp16
// scale times y's d in float32, accumulated in ggml's lanes.
//
// With a.F32 (the tq2_0 layout of an f32-scaled weight), b is the native
// layout's BITCOS kernel of the same float order instead: the f32 blocks hold
// the BITCOS rows' values and scale, and patch 0013 promises the native
// layout's bits.
func sameBits(a, b kernel, m *matrix, y act) error {
	if !a.TQ2 || b.TQ2 == a.F32 || a.order != b.order || a.order == orderNone {
		return fmt.Errorf("%s and %s: not a kernel of blocks and its yardstick in one float order (%d, %d)", a.Name, b.Name, a.order, b.order)
	}
	oa, ob := make([]float32, m.Rows), make([]float32, m.Rows)
	a.run(m, 0, m.Rows, y.ptr, oa)
	b.run(m, 0, m.Rows, y.ptr, ob)
	for r := range m.Rows {
		if math.Float32bits(oa[r]) != math.Float32bits(ob[r]) {
			return fmt.Errorf("%s row %d of %v: %g (%#08x), %s %g (%#08x): not bit-identical", a.Name, r, m.Shape,
				oa[r], math.Float32bits(oa[r]), b.Name, ob[r], math.Float32bits(ob[r]))
		}
	}
	return nil
}
