package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The mat-vec's launch geometry (bitcos_cuda.cuh: bitcos_cuda_mmv_args_mul_mat,
// _mul_mat_id and bitcos_cuda_mmv_locate, which patch 0016's kernel and host code
// call) against ggml's MUL_MAT and MUL_MAT_ID semantics, written here
// independently: which weight row, which src1 column and which dst element each
// warp of the grid takes, with broadcast 3-D/4-D weights, expert slots, a
// broadcast src1 row and a strided ids view.

// cudaMMV is one launch: a weight of ne01 rows in ne02 x ne03 matrices and the
// src1 shape (MUL_MAT: ne11 columns in ne12 x ne13; MUL_MAT_ID: ne11 rows per
// token, ne12 tokens, slots ids per token out of a row of idsStride).
type cudaMMV struct {
	name             string
	id               bool
	ne01, ne02, ne03 int
	ne11, ne12, ne13 int
	slots, idsStride int
}

var cudaMMVs = []cudaMMV{
	{name: "2-D weight, 3 columns", ne01: 5, ne02: 1, ne03: 1, ne11: 3, ne12: 1, ne13: 1},
	{name: "3-D weight, channels broadcast x2", ne01: 3, ne02: 2, ne03: 1, ne11: 2, ne12: 4, ne13: 1},
	{name: "4-D weight, channels x2, samples x3", ne01: 3, ne02: 2, ne03: 2, ne11: 1, ne12: 4, ne13: 6},
	{name: "8 columns", ne01: 3, ne02: 1, ne03: 1, ne11: 8, ne12: 1, ne13: 1},
	{name: "MUL_MAT_ID, a src1 row per slot, ids view", id: true, ne01: 3, ne02: 4, ne03: 1, ne11: 2, ne12: 3, ne13: 1, slots: 2, idsStride: 4},
	{name: "MUL_MAT_ID, one src1 row for all slots", id: true, ne01: 4, ne02: 5, ne03: 1, ne11: 1, ne12: 2, ne13: 1, slots: 3, idsStride: 3},
}

// cudaMMVExpected is ggml's answer: dst index -> (weight row, src1 column).
func (c cudaMMV) expected(ids []int32) (ndst int, rowOf, colOf map[int]int) {
	rowOf, colOf = map[int]int{}, map[int]int{}
	if c.id {
		ndst = c.ne01 * c.slots * c.ne12
		for t := range c.ne12 {
			for s := range c.slots {
				e := int(ids[t*c.idsStride+s])
				for r := range c.ne01 {
					d := (t*c.slots+s)*c.ne01 + r
					rowOf[d], colOf[d] = e*c.ne01+r, t*c.ne11+s%c.ne11
				}
			}
		}
		return
	}
	ndst = c.ne01 * c.ne11 * c.ne12 * c.ne13
	r2, r3 := c.ne12/c.ne02, c.ne13/c.ne03
	for i13 := range c.ne13 {
		for i12 := range c.ne12 {
			for i11 := range c.ne11 {
				for r := range c.ne01 {
					d := ((i13*c.ne12+i12)*c.ne11+i11)*c.ne01 + r
					rowOf[d] = ((i13/r3)*c.ne02+i12/r2)*c.ne01 + r
					colOf[d] = (i13*c.ne12+i12)*c.ne11 + i11
				}
			}
		}
	}
	return
}

func runCudaMMV(t *testing.T, harness string, c cudaMMV, m *testRows, y []BlockQ8_1, ids []int32, ndst int) ([]float32, error) {
	t.Helper()
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("BCCM")
	if err := writeHarnessRows(&b, m, int32(len(y)/(m.k/QK8_1))); err != nil {
		t.Fatal(err)
	}
	op, gy, gz, ncols := int32(0), c.ne12, c.ne13, c.ne11
	s1, s2, s3 := c.ne01, c.ne01*c.ne11, c.ne01*c.ne11*c.ne12
	if c.id {
		op, gy, gz, ncols = 1, c.slots, c.ne12, 1
		s1, s2 = c.ne01, c.ne01*c.slots
	}
	fields := []any{op}
	for _, v := range []int{c.ne01, c.ne02, c.ne03, c.ne11, c.ne12, c.ne13, s1, s2, s3, c.idsStride} {
		fields = append(fields, int64(v))
	}
	fields = append(fields, int32(gy), int32(gz), int32(ncols), int32(len(ids)), ids, int64(ndst))
	for _, v := range fields {
		if err := binary.Write(&b, le, v); err != nil {
			t.Fatal(err)
		}
	}
	b.Write(q81Bytes(y))
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err := exec.Command(harness, in, out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("harness: %w\n%s", err, o)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 4*ndst {
		t.Fatalf("harness wrote %d bytes, want %d", len(raw), 4*ndst)
	}
	dst := make([]float32, ndst)
	if err := binary.Read(bytes.NewReader(raw), le, dst); err != nil {
		t.Fatal(err)
	}
	return dst, nil
}

// cudaMMVMismatches runs every launch of cudaMMVs through the harness and counts
// the dst elements that differ from VecDotQ8_1CUDA of ggml's (row, column) pair
// or that no warp wrote; a harness failure (a geometry out of range) counts as
// one scenario wrong.
func cudaMMVMismatches(t *testing.T, harness string, report int) (bad, total int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 24))
	const k = 512
	for i, c := range cudaMMVs {
		m := makeRows(t, rng, k, c.ne01*c.ne02*c.ne03, []float64{0.4, 1, 0.3}, i%3 == 2)
		ncolsY := c.ne11 * c.ne12 * c.ne13
		x := syclActivations(rng, k, ncolsY)
		y := make([]BlockQ8_1, len(x)/QK8_1)
		QuantizeQ8_1CUDA(x, y)
		var ids []int32
		if c.id {
			ids = make([]int32, c.ne12*c.idsStride)
			for tok := range c.ne12 {
				for s, e := range rng.Perm(c.ne02)[:c.slots] {
					ids[tok*c.idsStride+s] = int32(e)
				}
				for s := c.slots; s < c.idsStride; s++ {
					ids[tok*c.idsStride+s] = -1 // outside the view: must not be read
				}
			}
		}
		ndst, rowOf, colOf := c.expected(ids)
		total += ndst
		got, err := runCudaMMV(t, harness, c, m, y, ids, ndst)
		if err != nil {
			if bad < report {
				t.Errorf("%s: %.200v", c.name, err)
			}
			bad++
			continue
		}
		nb := k / QK8_1
		for d := range ndst {
			r, col := rowOf[d], colOf[d]
			want := VecDotQ8_1CUDA(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.scaleGroup(), m.d32, y[col*nb:(col+1)*nb], cudaMmvDefault)
			if math.Float32bits(got[d]) != math.Float32bits(want) {
				if bad < report {
					t.Errorf("%s: dst[%d] = %v (%#x), want row %d x column %d = %v", c.name, d, got[d],
						math.Float32bits(got[d]), r, col, want)
				}
				bad++
			}
		}
	}
	return bad, total
}

func TestCudaMatVecGeometry(t *testing.T) {
	harness := filepath.Join(t.TempDir(), "harness")
	buildCudaHarness(t, harness)
	if bad, total := cudaMMVMismatches(t, harness, 5); bad != 0 {
		t.Fatalf("%d of %d dst elements differ from ggml's MUL_MAT / MUL_MAT_ID", bad, total)
	} else {
		t.Logf("%d launches (MUL_MAT 2-D to 4-D with broadcast, MUL_MAT_ID with slots and a strided ids view): "+
			"all %d dst elements are ggml's row x column, bit-exact", len(cudaMMVs), total)
	}
	broken := filepath.Join(t.TempDir(), "harness")
	buildCudaHarness(t, broken, "-DBITCOS_CUDA_MUTATE_GEOMETRY=1")
	bad, total := cudaMMVMismatches(t, broken, 0)
	if bad == 0 {
		t.Fatal("BITCOS_CUDA_MUTATE_GEOMETRY=1 (y offset without the grid's z): nothing differs, the comparison cannot fail")
	}
	t.Logf("BITCOS_CUDA_MUTATE_GEOMETRY=1: %d of %d dst elements differ, as they must", bad, total)
}
