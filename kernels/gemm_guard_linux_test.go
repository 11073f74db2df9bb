//go:build linux

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestGemmStaysInBounds: the batched kernel's panel decode reads up to 8
// bytes past a row's last sign byte and nothing past its bitmap, and its
// tiles nothing past a column's blocks: each row and the column end at an
// inaccessible page (a bad read kills the test), in every build this CPU
// runs.
func TestGemmStaysInBounds(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for _, k := range []int{256, 2560} {
		m := makeRows(t, rng, k, len(testZs), testZs, false)
		y0 := randomActivations(rng, k, true)
		yb := guarded(t, len(y0)*int(unsafe.Sizeof(y0[0])))
		y := unsafe.Slice((*BlockQ8K)(unsafe.Pointer(&yb[0])), len(y0))
		copy(y, y0)
		for r := range m.rows {
			nsign := int(m.off[r+1] - m.off[r])
			bm := guarded(t, k/8)
			copy(bm, m.rowBitmap(r))
			sg := guarded(t, nsign+8) // the row's signs, then the 8-byte tail
			copy(sg, m.signs[m.off[r]:m.off[r+1]])
			one := &testRows{k: k, rows: 1, bitmap: bm, signs: sg, off: []uint32{0, uint32(nsign)}, d16: m.rowScales(r)}
			want := VecDotQ8KTQ2Order(bm, sg, one.d16, 0, y)
			for _, b := range gemmBuilds() {
				if b.why != "" {
					continue
				}
				var got [1]float32
				b.run(k, 1, 1, one, 1, y, got[:], nil)
				if math.Float32bits(got[0]) != math.Float32bits(want) {
					t.Fatalf("%s k=%d row %d: got %v, want %v", b.name, k, r, got[0], want)
				}
			}
		}
	}
}
