//go:build linux

package kernels

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// guarded returns n bytes that end exactly where an inaccessible page
// begins: a kernel reading past them faults.
func guarded(t *testing.T, n int) []byte {
	t.Helper()
	pg := syscall.Getpagesize()
	np := (n+pg-1)/pg + 1
	mem, err := syscall.Mmap(-1, 0, np*pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[(np-1)*pg:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[(np-1)*pg-n : (np-1)*pg]
}

// guardedColumn copies y0 to activations that end at an inaccessible page.
func guardedColumn(t *testing.T, y0 []BlockQ8K) []BlockQ8K {
	t.Helper()
	yb := guarded(t, len(y0)*int(unsafe.Sizeof(y0[0])))
	y := unsafe.Slice((*BlockQ8K)(unsafe.Pointer(&yb[0])), len(y0))
	copy(y, y0)
	return y
}

// guardedRow copies row r of m to a one-row set whose bitmap, whose signs
// followed by the 8-byte tail, and whose TQ2_0 blocks (when m has them) each
// end at an inaccessible page.
func guardedRow(t *testing.T, m *testRows, r int) *testRows {
	t.Helper()
	nsign := int(m.off[r+1] - m.off[r])
	bm := guarded(t, m.k/8)
	copy(bm, m.rowBitmap(r))
	sg := guarded(t, nsign+8)
	copy(sg, m.signs[m.off[r]:m.off[r+1]])
	one := &testRows{k: m.k, rows: 1, bitmap: bm, signs: sg, off: []uint32{0, uint32(nsign)}, d16: m.rowScales(r)}
	if m.tq2 != nil {
		rowTQ := m.k / QK_K * 66
		one.tq2 = guarded(t, rowTQ)
		copy(one.tq2, m.tq2[r*rowTQ:(r+1)*rowTQ])
	}
	return one
}

// The contract lets a kernel read up to 8 bytes past a row's last sign byte
// and nothing past its bitmap or its activations: each row is copied to
// buffers that end at an inaccessible page (a bad read kills the test).
// Every one-column kernel of the exact and the TQ2_0 x86 orders that runs
// here.
func TestCKernelsStayInBounds(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, k := range []int{256, 2560} {
		m := makeRows(t, rng, k, len(testZs), testZs, false)
		y := guardedColumn(t, randomActivations(rng, k, false))
		for r := range m.rows {
			one := guardedRow(t, m, r)
			for _, set := range []struct {
				vs   []cVariant
				want float32
			}{
				{cVariants(), VecDotQ8K(one.bitmap, one.signs, one.d16, 0, y)},
				{tq2Variants(), VecDotQ8KTQ2Order(one.bitmap, one.signs, one.d16, 0, y)},
			} {
				for _, v := range set.vs {
					if v.why != "" {
						continue
					}
					var got [1]float32
					v.run(one, y, got[:])
					if math.Float32bits(got[0]) != math.Float32bits(set.want) {
						t.Fatalf("%s k=%d row %d: got %v, want %v", v.name, k, r, got[0], set.want)
					}
				}
			}
		}
	}
}
