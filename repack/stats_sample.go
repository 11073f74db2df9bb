package repack

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"golang.org/x/sync/errgroup"
)

// Sampled stats (stats --sample N) read N blocks of each ternary tensor
// instead of all of it, which over HTTP (internal/source) measures a hub
// checkpoint for a few MB of traffic.
//
// Design. The sampling unit is a block of the tensor's own layout: 256
// weights of TQ2_0 (66 bytes) or TQ1_0 (54), 64 of Q2_0 (18), 128 of I2_S
// (32 bytes of codes; the tensor's scale is not needed to count zeros), 128
// of a BITCOS bitmap (16 bytes, a popcount), 256 of a float master (512 or
// 1024 bytes). N distinct blocks are drawn uniformly without replacement
// (Floyd's algorithm) from a PCG seeded with FNV-64a(tensor name) XOR the
// seed, so a run is reproducible and tensors draw independently.
//
// Estimator. Blocks, not weights, are the sampled units, and weights of one
// block are correlated (a row shares a scale and, in trained models, a
// sparsity level), so the interval is a cluster-sample one: with y_j the
// zero fraction of block j, z^ = mean(y) (all blocks have equal size, so
// this is the ratio estimator) and
//
//	Var(z^) = (1 - n/M) * s_y^2 / n
//
// (s_y^2 the sample variance of y, M blocks in the tensor, the finite
// population correction because blocks are drawn without replacement). A
// Wilson interval over the n*B sampled weights would treat them as
// independent and be too narrow when blocks differ. For a float master z^
// is not a mean: the absmean scale s is itself estimated from the sample
// (format.Ternarize on the sampled weights), so its variance is the
// delete-a-group jackknife over G = min(n, 64) random groups of blocks:
// Var = (1 - n/M) * (G-1)/G * sum_g (z_(-g) - mean z_(-g))^2, where z_(-g)
// ternarizes the sample without group g (scale included).
//
// The printed interval is z^ +- t(0.975, df) * SE (df = n-1, or G-1 for the
// jackknife), widened to contain the Wilson score interval over the sampled
// weights: near z = 0 or 1 every sampled block can show the same fraction
// and the cluster SE is 0, which no sample proves; Wilson is the floor. The
// model total is stratified (tensors are strata): z^ = sum W_h z^_h with
// W_h the weight share, SE^2 = sum W_h^2 SE_h^2, with SE_h the larger of the
// cluster SE and the Wilson half-width / 1.96; interval +- 1.96 SE.
//
// Measured (stats_sample_test.go): on blocks whose rows differ in sparsity (0.2
// to 0.7, N = 32, 400 draws) the cluster interval covers the true z 93% of
// the time, a Wilson interval over the weights 31%; on F32 rows with
// log-normal scales (sigma 0.4, N = 64, 160 intervals) the jackknife
// intervals cover 93%, Wilson 64%. With stronger row-to-row
// variation (sigma 0.6) coverage drops to about 90%: the mean of a skewed
// population has a skewed estimate whose variance is underestimated
// exactly when the scale is (a sample that misses the large rows), so use
// N >= 64 on such tensors.
//
// What a sample cannot see: a code 3 (not ternary), a NaN or infinite
// scale or non-canonical TQ1_0 bytes outside the sampled blocks (and I2_S's
// one scale, which is not read). Exact mode keeps
// such tensors; a sampled run keeps them only when a sampled block shows it.
//
// A tensor of at most N blocks is read whole and reported exactly. Zero
// rows, dead neurons and BITCOS sizes need every row: in sampled mode the
// layout and sizes are computed for rows that all hold the estimated share
// of non-zeros, and a tensor whose interval straddles the layout's
// break-even says so in its reason.

// ZInterval is the sampled estimate of one tensor's zero density.
type ZInterval struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Blocks int64   `json:"sampled_blocks"`
	Of     int64   `json:"blocks"`
	Unit   int     `json:"block_weights"`
	Method string  `json:"method"` // "exact", "cluster" or "jackknife"

	se    float64 // for the stratified total
	bytes int64   // tensor bytes read
}

// SampleSummary describes a sampled stats run.
type SampleSummary struct {
	BlocksPerTensor int     `json:"blocks_per_tensor"`
	Seed            uint64  `json:"seed"`
	ZLow            float64 `json:"total_z_low"`
	ZHigh           float64 `json:"total_z_high"`
	BytesRead       int64   `json:"tensor_bytes_read"`
	Confidence      float64 `json:"confidence"`
}

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

// drawBlocks picks n distinct indices of [0, m) (n < m) in draw order.
func drawBlocks(name string, seed uint64, n, m int64) []int64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	rng := rand.New(rand.NewPCG(h.Sum64()^seed, 0x9e3779b97f4a7c15))
	seen := make(map[int64]bool, n)
	out := make([]int64, 0, n)
	for j := m - n; j < m; j++ { // Floyd: every n-subset equally likely
		x := rng.Int64N(j + 1)
		if seen[x] {
			x = j
		}
		seen[x] = true
		out = append(out, x)
	}
	rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
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
func sampleTensor(f *input, i int, n int, seed uint64, ternarize bool) (d Decision, iv *ZInterval, ok bool, err error) {
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
	idx := drawBlocks(t.Name, seed, int64(n), m)
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
		jack = jackknife(w, uw, n)
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
	iv = interval(zhat, y, jack, int64(n), m, uw)
	iv.bytes = read
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

// jackknife returns z of the sample without each of G = min(n, 64) groups
// of blocks (block j in group j mod G; blocks are in draw order, so groups
// are random), each ternarized with its own absmean scale (so the cost is
// G passes over the sample).
func jackknife(w []float32, uw, n int) []float64 {
	g := min(n, 64)
	out := make([]float64, g)
	sub := make([]float32, 0, len(w))
	var p format.Planes
	for grp := range g {
		sub = sub[:0]
		for j := range n {
			if j%g != grp {
				sub = append(sub, w[j*uw:(j+1)*uw]...)
			}
		}
		rows := len(sub) / uw
		format.Ternarize(sub, uw, rows, &p)
		nnz := 0
		for _, c := range format.RowNonZeros(&p, nil) {
			nnz += c
		}
		out[grp] = 1 - float64(nnz)/float64(len(sub))
	}
	return out
}

// interval builds the printed interval of z^ (see the design note above).
func interval(zhat float64, y, jack []float64, n, m int64, uw int) *ZInterval {
	fpc := 1 - float64(n)/float64(m)
	var se float64
	df := n - 1
	iv := &ZInterval{Blocks: n, Of: m, Unit: uw, Method: "cluster"}
	if jack != nil {
		g := float64(len(jack))
		mean := 0.0
		for _, v := range jack {
			mean += v
		}
		mean /= g
		ss := 0.0
		for _, v := range jack {
			ss += (v - mean) * (v - mean)
		}
		se = math.Sqrt(fpc * (g - 1) / g * ss)
		df, iv.Method = int64(len(jack))-1, "jackknife"
	} else {
		ss := 0.0
		for _, v := range y {
			ss += (v - zhat) * (v - zhat)
		}
		se = math.Sqrt(fpc * ss / float64(n-1) / float64(n))
	}
	h := tQuantile975(df) * se
	wl, wh := wilson(zhat, float64(n)*float64(uw))
	iv.Low = max(min(zhat-h, wl), 0)
	iv.High = min(max(zhat+h, wh), 1)
	iv.se = max(se, (wh-wl)/2/1.96)
	return iv
}

// wilson is the 95% Wilson score interval of a proportion p over n trials.
func wilson(p, n float64) (lo, hi float64) {
	const z = 1.959963984540054
	den := 1 + z*z/n
	c := (p + z*z/(2*n)) / den
	h := z / den * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return max(c-h, 0), min(c+h, 1)
}

// tQuantile975 is Student's t 0.975 quantile (a table to 30 degrees of
// freedom, then the Cornish-Fisher expansion, within 1e-3 of exact).
func tQuantile975(df int64) float64 {
	table := [...]float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < 1 {
		return math.Inf(1)
	}
	if df < int64(len(table)) {
		return table[df]
	}
	z, v := 1.959963984540054, float64(df)
	return z + (z*z*z+z)/(4*v) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*v*v)
}

// sampledDecision fills d as if every row held the estimated share of
// non-zeros, and notes when the interval's ends lead to different layouts.
func sampledDecision(f *input, d *Decision, zhat float64, iv *ZInterval) {
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

// totalInterval is the stratified interval of the model's z (stats_sample.go).
func totalInterval(fs *FileStats, ivs []*ZInterval, opt *StatsOptions) *SampleSummary {
	sum := &SampleSummary{BlocksPerTensor: opt.Sample, Seed: opt.Seed, Confidence: 0.95, ZLow: fs.Total.Z, ZHigh: fs.Total.Z}
	var v float64
	for j, iv := range ivs {
		w := float64(fs.Tensors[j].Weights) / float64(fs.Total.Weights)
		v += w * w * iv.se * iv.se
		sum.BytesRead += iv.bytes
	}
	h := 1.959963984540054 * math.Sqrt(v)
	sum.ZLow, sum.ZHigh = max(fs.Total.Z-h, 0), min(fs.Total.Z+h, 1)
	return sum
}

// exactInterval describes a tensor read whole in a sampled run.
func exactInterval(f *input, i int, z float64, master bool) *ZInterval {
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
	return &ZInterval{Low: z, High: z, Blocks: m, Of: m, Unit: uw, Method: "exact", bytes: read}
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
