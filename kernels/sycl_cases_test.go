package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// syclCase is one input of the SimSYCL harness (kernels/sycl/harness): a
// BITCOS matrix from the real encoder, ncols activation columns (floats and
// their QuantizeQ8K blocks) and GET_ROWS indices.
type syclCase struct {
	m   *testRows
	x   []float32  // ncols * k
	y   []BlockQ8K // ncols * k/256, QuantizeQ8K(x) column by column
	idx []int32    // GET_ROWS indices, some out of range
}

func (c *syclCase) ncols() int { return len(c.x) / c.m.k }

// syclKs: 24 row lengths from 256 to 32768, 1 to 128 blocks of 256 (odd
// block counts among them). The loader (patch 0003) refuses K % 256 != 0, so
// no BITCOS row shorter than 256 reaches a kernel.
var syclKs = []int{256, 512, 768, 1024, 1280, 1536, 2048, 2304, 2560, 2816, 3072, 3584,
	4096, 5120, 6912, 7168, 8192, 11008, 13824, 14336, 16384, 20480, 27648, 32768}

// syclZs: per-row zero densities, cycled: 0..0.6 (real files sit at
// 0.3-0.52), plus all-zero and 90%-zero rows.
var syclZs = []float64{0.42, 0, 0.1, 1, 0.2, 0.3, 0.5, 0.6, 0.33, 0.9, 0.47}

// syclCases makes the cases: every row length, odd row counts (fewer rows
// for long rows, to keep the simulated run short), fp16 scales per 256 with
// zero and subnormal blocks, or a per-tensor scale, or fp16 scales per 64 (a
// Q2_0 source's: the decodes only), one to three columns.
func syclCases(t testing.TB, seed uint64) []*syclCase {
	rng := rand.New(rand.NewPCG(seed, 11))
	var cases []*syclCase
	for i, k := range syclKs {
		rows := max(1, min(37, 160000/k)) | 1 // odd
		var m *testRows
		if i%5 == 1 {
			m = makeRows64(t, rng, k, rows, rotate(syclZs, i))
		} else {
			m = makeRows(t, rng, k, rows, rotate(syclZs, i), i%5 == 3)
		}
		ncols := 1 + i%3
		x := syclActivations(rng, k, ncols)
		y := make([]BlockQ8K, ncols*k/QK_K)
		QuantizeQ8K(x, y) // columns are whole blocks, so one call quantizes each
		idx := []int32{int32(rows - 1), 0, -1, int32(rows), int32(rows / 2)}
		cases = append(cases, &syclCase{m: m, x: x, y: y, idx: idx})
	}
	return cases
}

func rotate(zs []float64, i int) []float64 {
	i %= len(zs)
	return append(append([]float64{}, zs[i:]...), zs[:i]...)
}

// syclActivations: normal floats of varying spread per 256-block, an
// all-zero block now and then, and blocks whose largest magnitude occurs
// twice with opposite signs (QuantizeQ8K keeps the first).
func syclActivations(rng *rand.Rand, k, ncols int) []float32 {
	x := make([]float32, k*ncols)
	for b := range len(x) / QK_K {
		xb := x[b*QK_K : (b+1)*QK_K]
		switch rng.IntN(8) {
		case 0:
			continue
		case 1:
			for j := range xb {
				xb[j] = float32(rng.NormFloat64())
			}
			i, j := rng.IntN(QK_K), rng.IntN(QK_K)
			if i != j {
				xb[i], xb[j] = 9, -9
			}
		default:
			scale := math.Exp(rng.Float64()*10 - 5)
			for j := range xb {
				xb[j] = float32(rng.NormFloat64() * scale)
			}
		}
	}
	return x
}

// writeSyclCases serializes the cases in the harness's input format.
func writeSyclCases(w io.Writer, cases []*syclCase) error {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("BCSY")
	b.Write(le.AppendUint32(nil, uint32(len(cases))))
	for _, c := range cases {
		if err := writeHarnessRows(&b, c.m, int32(c.ncols()), int32(len(c.idx))); err != nil {
			return err
		}
		b.Write(q8KBytes(c.y))
		for _, v := range []any{c.x, c.idx} {
			if err := binary.Write(&b, le, v); err != nil {
				return err
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// q8KBytes is the memory of the blocks (BlockQ8K has block_q8_K's layout).
func q8KBytes(y []BlockQ8K) []byte {
	if len(y) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&y[0])), len(y)*int(unsafe.Sizeof(y[0])))
}

// syclResult is the harness's output for one case.
type syclResult struct {
	dot     []float32 // ncols * rows
	q8k     []byte    // ncols * k/256 blocks
	deq     []float32 // rows * k
	deq16   []uint16  // rows * k
	getRows []float32 // len(idx) * k
}

func readSyclResults(r io.Reader, cases []*syclCase) (sg uint32, out []syclResult, err error) {
	le := binary.LittleEndian
	if err := binary.Read(r, le, &sg); err != nil {
		return 0, nil, err
	}
	for _, c := range cases {
		k, rows := c.m.k, c.m.rows
		res := syclResult{
			dot:     make([]float32, c.ncols()*rows),
			q8k:     make([]byte, len(q8KBytes(c.y))),
			deq:     make([]float32, rows*k),
			deq16:   make([]uint16, rows*k),
			getRows: make([]float32, len(c.idx)*k),
		}
		for _, v := range []any{res.dot, res.q8k, res.deq, res.deq16, res.getRows} {
			if err := binary.Read(r, le, v); err != nil {
				return 0, nil, fmt.Errorf("case k=%d rows=%d: %w", k, rows, err)
			}
		}
		out = append(out, res)
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return 0, nil, fmt.Errorf("trailing output")
	}
	return sg, out, nil
}

// writeHarnessRows writes a BITCOS matrix as the SYCL and CUDA harnesses read
// it: k, rows, the harness's own counts (mid), per-tensor flag, d32, the sign
// stream's length, then bitmap, signs, row offsets and fp16 scales.
func writeHarnessRows(b *bytes.Buffer, m *testRows, mid ...int32) error {
	perTensor := int32(0) // the scales: 0 fp16 per 256, 1 one f32, 2 fp16 per 64
	switch {
	case m.d16 == nil:
		perTensor = 1
	case m.scaleGroup() == 64:
		perTensor = 2
	}
	head := []any{int32(m.k), int32(m.rows)}
	for _, v := range mid {
		head = append(head, v)
	}
	for _, v := range append(head, perTensor, m.d32, uint32(len(m.signs))) {
		if err := binary.Write(b, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	b.Write(m.bitmap)
	b.Write(m.signs)
	for _, v := range []any{m.off, m.d16} {
		if err := binary.Write(b, binary.LittleEndian, v); err != nil {
			return err
		}
	}
	return nil
}
