package repack

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
	"golang.org/x/sync/errgroup"
)

// Sampled stats (stats --sample N) read N blocks of each ternary tensor
// instead of all of it; the design and the estimator are package stats'
// (stats/sample.go). Here: the sampling unit of each layout, the blocks
// read, and a tensor's decision from the estimate.

// sampleUnit returns the block size (weights, bytes) tensor t is sampled
// by, or 0 when it cannot be sampled.
func sampleUnit(t ggufx.TensorInfo, master bool) (weights, bytes int) {
	if master {
		return 256, 256 * t.Type.TypeSize() / max(t.Type.BlockSize(), 1)
	}
	switch t.Type {
	case ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0:
		return t.Type.BlockSize(), t.Type.TypeSize()
	case ggufx.TypeI2_S:
		return 128, 32
	case ggufx.TypeBITCOS:
		return format.BitcosBlock, format.BitcosBlock / 8
	}
	return 0, 0
}

// readBlocks reads the blocks idx (each ub bytes) of tensor i, in the order
// of idx, coalescing runs of adjacent blocks into one read. Up to
// readParallel reads are in flight at once: over HTTP a sampled tensor is
// dozens of small range requests, and their round trips, not their bytes,
// are the cost.
func readBlocks(f *input, i int, idx []int64, ub int) ([]byte, error) {
	t := f.Tensors[i]
	order := make([]int, len(idx))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) })
	sorted := make([]byte, len(idx)*ub)
	var g errgroup.Group
	g.SetLimit(readParallel)
	for s := 0; s < len(order); {
		e := s + 1
		for e < len(order) && idx[order[e]] == idx[order[e-1]]+1 {
			e++
		}
		dst := sorted[s*ub : e*ub]
		off := int64(f.DataOffset+t.Offset) + idx[order[s]]*int64(ub)
		g.Go(func() error {
			if n, err := f.ReaderAt().ReadAt(dst, off); n < len(dst) {
				return fmt.Errorf("%s: tensor %q: reading sampled blocks at offset %d: %w", f.Path, t.Name, off, err)
			}
			return nil
		})
		s = e
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make([]byte, len(sorted))
	for j, o := range order {
		copy(out[o*ub:(o+1)*ub], sorted[j*ub:(j+1)*ub])
	}
	return out, nil
}

// readParallel is the number of concurrent block reads of one tensor.
const readParallel = 16

// sampleTensor estimates tensor i's zero density from n blocks. It returns
// ok == false when the tensor is to be read whole instead (no sampling
// unit, or no more blocks than n).
func sampleTensor(f *input, i int, n int, seed uint64, ternarize bool) (d Decision, iv *stats.ZInterval, ok bool, err error) {
	t := f.Tensors[i]
	d, cand := preDecide(f, i, ternarize)
	if t.Type == ggufx.TypeBITCOS {
		d = Decision{Name: t.Name, Type: t.Type.String(), Dims: t.Dims, Source: t.Type, Layout: LayoutBitcos, Weights: int64(t.Elements())}
	} else if !cand || d.head != nil {
		return d, nil, false, nil
	}
	uw, ub := sampleUnit(t, d.master)
	m := int64(t.Elements()) / int64(max(uw, 1))
	if uw == 0 || int64(n) >= m {
		return d, nil, false, nil
	}
	idx := stats.DrawBlocks(t.Name, seed, int64(n), m)
	raw, err := readBlocks(f, i, idx, ub)
	if err != nil {
		return d, nil, false, err
	}
	read := int64(len(raw))
	y := make([]float64, n) // zero fraction per block
	nz := 0                 // zeros in the sample
	jack := []float64(nil)
	switch {
	case t.Type == ggufx.TypeBITCOS:
		for j := range n {
			c := 0
			for _, x := range raw[j*ub : (j+1)*ub] {
				c += bits.OnesCount8(x)
			}
			y[j] = 1 - float64(c)/float64(uw)
			nz += uw - c
		}
	case d.master:
		w := masterFloats(t.Type, raw)
		var p format.Planes
		format.Ternarize(w, uw, n, &p)
		for j, c := range format.RowNonZeros(&p, nil) {
			y[j] = 1 - float64(c)/float64(uw)
			nz += uw - c
		}
		jack = stats.Jackknife(w, uw, n)
	default:
		c := d.codec
		if t.Type == ggufx.TypeI2_S {
			raw = append(raw, make([]byte, 32)...) // a tail: the scale is not needed to count
		}
		var p format.Planes
		var s format.Scales
		if err := c.Decode(raw, uw, n, &p, &s); err != nil {
			if r := keptReason(err); r != "" {
				keep(&d, r+" (seen in a sampled block)")
				return d, nil, true, nil
			}
			return d, nil, false, fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
		}
		if err := format.CheckScales(&s); err != nil {
			keep(&d, keptReason(err)+" (seen in a sampled block)")
			return d, nil, true, nil
		}
		for j, c := range format.RowNonZeros(&p, nil) {
			y[j] = 1 - float64(c)/float64(uw)
			nz += uw - c
		}
	}
	zhat := float64(nz) / float64(n*uw)
	iv = stats.Interval(zhat, y, jack, int64(n), m, uw, read)
	sampledDecision(f, &d, zhat, iv)
	return d, iv, true, nil
}

// masterFloats converts sampled float-master bytes to float32.
func masterFloats(t ggufx.GGMLType, raw []byte) []float32 {
	switch t {
	case ggufx.TypeF16:
		w := make([]float32, len(raw)/2)
		format.F16ToF32(raw, w)
		return w
	case ggufx.TypeBF16:
		w := make([]float32, len(raw)/2)
		format.BF16ToF32(raw, w)
		return w
	}
	w := make([]float32, len(raw)/4)
	for j := range w {
		w[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
	}
	return w
}

// sampledDecision fills d as if every row held the estimated share of
// non-zeros, and notes when the interval's ends lead to different layouts.
func sampledDecision(f *input, d *Decision, zhat float64, iv *stats.ZInterval) {
	k, rows := ggufx.Shape2D(d.Dims)
	rowsAt := func(z float64) []int {
		nnz := make([]int, rows)
		for r := range nnz {
			nnz[r] = int(math.Round((1 - z) * float64(k)))
		}
		return nnz
	}
	if d.Source == ggufx.TypeBITCOS {
		fillCounts(d, rowsAt(zhat))
		d.Z = zhat
		d.isTernary = true
		d.BitcosBytes, d.bitcosData = familyBytesFromHeader(f, d.Name)
		if j, ok := f.Tensor(bitcos.CompanionBase(d.Name) + bitcos.SuffixSigns); ok {
			d.signBytes = int(f.Tensors[j].Size) // exact, from the header
		}
		return
	}
	lo, hi := *d, *d
	decide(f, &lo, rowsAt(iv.High), true) // more zeros: the smaller BITCOS
	decide(f, &hi, rowsAt(iv.Low), true)
	decide(f, d, rowsAt(zhat), true)
	d.Z = zhat
	if lo.Layout != hi.Layout {
		note := fmt.Sprintf("layout uncertain: %s at z=%.4f, %s at z=%.4f", lo.Layout, iv.High, hi.Layout, iv.Low)
		if d.Reason != "" {
			note = d.Reason + "; " + note
		}
		d.Reason = note
	}
}

// familyBytesFromHeader is the file cost of the BITCOS family of weight
// and its data alone (no padding, no header entries), from the header
// alone.
func familyBytesFromHeader(f *input, weight string) (family, data int64) {
	var n, m uint64
	base := bitcos.CompanionBase(weight)
	for j, name := range []string{weight, base + bitcos.SuffixSigns, base + bitcos.SuffixRows, base + bitcos.SuffixScales} {
		if i, ok := f.Tensor(name); ok {
			n += pad(f.Tensors[i].Size, f.Alignment)
			m += f.Tensors[i].Size
			if j > 0 {
				n += ggufx.TensorInfoSize(f.Tensors[i])
			}
		}
	}
	return int64(n), int64(m)
}

// exactInterval describes a tensor read whole in a sampled run.
func exactInterval(f *input, i int, z float64, master bool) *stats.ZInterval {
	t := f.Tensors[i]
	uw, _ := sampleUnit(t, master)
	m := int64(0)
	if uw > 0 {
		m = int64(t.Elements()) / int64(uw)
	}
	read := int64(t.Size)
	if t.Type == ggufx.TypeBITCOS { // the whole family was read
		base := bitcos.CompanionBase(t.Name)
		for _, c := range []string{bitcos.SuffixSigns, bitcos.SuffixRows, bitcos.SuffixScales} {
			if j, ok := f.Tensor(base + c); ok {
				read += int64(f.Tensors[j].Size)
			}
		}
	}
	return stats.ExactInterval(z, m, uw, read)
}

// storedGroup is the scale group of BITCOS tensor i as its scales
// companion stores it (0: one f32 per tensor).
func storedGroup(f *input, i int) int {
	t := f.Tensors[i]
	j, ok := f.Tensor(bitcos.CompanionBase(t.Name) + bitcos.SuffixScales)
	if !ok || f.Tensors[j].Type == ggufx.TypeF32 || f.Tensors[j].Dims[0] == 0 {
		return 0
	}
	return int(t.Dims[0] / f.Tensors[j].Dims[0])
}
