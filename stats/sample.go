package stats

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gguf-bitcos/gguf-bitcos/format"
)

// Sampled stats (stats --sample N) read N blocks of each ternary tensor
// instead of all of it, which over HTTP (internal/source) measures a hub
// checkpoint for a few MB of traffic.
//
// Design. The sampling unit is a block of the tensor's own layout
// (repack's sampleUnit): 256 weights of TQ2_0 (66 bytes) or TQ1_0 (54), 64
// of Q2_0 (18), 128 of I2_S (32 bytes of codes; the tensor's scale is not
// needed to count zeros), 128 of a BITCOS bitmap (16 bytes, a popcount),
// 256 of a float master (512 or 1024 bytes). N distinct blocks are drawn uniformly without replacement
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
// Measured: on blocks whose rows differ in sparsity (0.2 to 0.7, N = 32,
// 400 draws; TestClusterInterval here) the cluster interval covers the true
// z 93% of the time, a Wilson interval over the weights 31%; on F32 rows
// with log-normal scales (sigma 0.4, N = 64, 160 intervals;
// TestIntervalCoverage in repack/stats_sample_test.go) the jackknife
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

// DrawBlocks picks n distinct indices of [0, m) (n < m) in draw order.
func DrawBlocks(name string, seed uint64, n, m int64) []int64 {
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

// Jackknife returns z of the sample without each of G = min(n, 64) groups
// of blocks (block j in group j mod G; blocks are in draw order, so groups
// are random), each ternarized with its own absmean scale (so the cost is
// G passes over the sample).
func Jackknife(w []float32, uw, n int) []float64 {
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

// Interval builds the printed interval of z^ (see the design note above)
// from the zero fraction y of each of n sampled blocks of uw weights among
// m, or from the jackknife's values jack (Jackknife; nil: the cluster
// interval); read is the tensor bytes read for it.
func Interval(zhat float64, y, jack []float64, n, m int64, uw int, read int64) *ZInterval {
	fpc := 1 - float64(n)/float64(m)
	var se float64
	df := n - 1
	iv := &ZInterval{Blocks: n, Of: m, Unit: uw, Method: "cluster", bytes: read}
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
	wl, wh := Wilson(zhat, float64(n)*float64(uw))
	iv.Low = max(min(zhat-h, wl), 0)
	iv.High = min(max(zhat+h, wh), 1)
	iv.se = max(se, (wh-wl)/2/1.96)
	return iv
}

// ExactInterval describes a tensor read whole in a sampled run: z exactly,
// all m blocks of uw weights, read bytes read.
func ExactInterval(z float64, m int64, uw int, read int64) *ZInterval {
	return &ZInterval{Low: z, High: z, Blocks: m, Of: m, Unit: uw, Method: "exact", bytes: read}
}

// Wilson is the 95% Wilson score interval of a proportion p over n trials.
func Wilson(p, n float64) (lo, hi float64) {
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

// TotalInterval is the stratified interval of the model's z (the design
// note above) over the intervals ivs of fs.Tensors, in order, sampled with
// blocks per tensor and seed.
func TotalInterval(fs *FileStats, ivs []*ZInterval, blocks int, seed uint64) *SampleSummary {
	sum := &SampleSummary{BlocksPerTensor: blocks, Seed: seed, Confidence: 0.95, ZLow: fs.Total.Z, ZHigh: fs.Total.Z}
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
