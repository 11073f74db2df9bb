package repack

import (
	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// Stats fills package stats' report of a file: what it holds and what
// repack would make of it, without writing anything. The report and its
// numbers (rates, totals, the sampled estimator's intervals) are package
// stats'; what each tensor would become is repack's own decision (plan.go:
// preDecide, analyzeCandidate, decide; header.go for the output's exact
// size), which is why this part lives here: stats_sample.go reads sampled
// blocks, stats_source.go opens the input (URLs and safetensors checkpoints
// through internal/source), stats_cost.go says what a decode step reads.

// Stats reads every ternary tensor of the file at path (stock or BITCOS).
//
// With ternarize, a float master's projections are reported as ternarized
// (as repack --ternarize would write them).
func Stats(path string, ternarize bool, heads map[string]format.HeadType) (*stats.FileStats, error) {
	return StatsWith(path, StatsOptions{Ternarize: ternarize, Heads: heads})
}

// StatsOptions are Stats' knobs.
type StatsOptions struct {
	Ternarize bool                       // report a float master's projections ternarized (implied for safetensors)
	Heads     map[string]format.HeadType // head tensors to quantize (head.go)
	Sample    int                        // blocks per tensor; 0 reads every byte (stats_sample.go)
	Seed      uint64                     // of the sampled blocks
	// HTTP tunes the range reader (tests set a short backoff).
	HTTP httprange.Options
}

// StatsWith is Stats of a local file or URL, a GGUF or a safetensors
// master, read whole or sampled (stats_source.go, stats_sample.go).
func StatsWith(path string, opt StatsOptions) (*stats.FileStats, error) {
	f, src, err := openStats(path, &opt) // a safetensors master sets opt.Ternarize
	if err != nil {
		return nil, err
	}
	defer src.close()
	defer f.Close()
	f.heads = opt.Heads
	s := &statsRun{f: f, opt: opt, zeroRowsOf: map[string][]bool{},
		fs: &stats.FileStats{File: path, FileBytes: f.FileSize, Bitcos: f.meta != nil, Model: stats.Summarize(f.File)}}
	for i, t := range f.Tensors {
		if bitcos.IsCompanion(t.Name) {
			continue
		}
		d, iv, sampled, err := s.decide(i)
		if err != nil {
			return nil, err
		}
		s.add(i, d, iv, sampled)
	}
	return s.finish(src)
}

// statsRun is one StatsWith over an open file: the report as it fills, and
// what its totals need of every tensor.
type statsRun struct {
	f          *input
	opt        StatsOptions
	fs         *stats.FileStats
	b          tensorBuf          // the last tensor read (add reads a BITCOS tensor's scale group from it)
	dec        []Decision         // every tensor's but companions', in order
	ivs        []*stats.ZInterval // sampled runs: every ternary tensor's interval
	zeroRowsOf map[string][]bool
}

// decide is tensor i's decision: estimated from sampled blocks (then
// sampled, with its interval iv), read from its planes (a BITCOS tensor),
// or analysed as repack would decide it.
func (s *statsRun) decide(i int) (d Decision, iv *stats.ZInterval, sampled bool, err error) {
	f, t := s.f, s.f.Tensors[i]
	if s.opt.Sample > 0 {
		if d, iv, sampled, err = sampleTensor(f, i, s.opt.Sample, s.opt.Seed, s.opt.Ternarize); err != nil {
			return d, nil, false, err
		}
	}
	switch {
	case sampled:
		// d is the estimate
	case t.Type == ggufx.TypeBITCOS:
		if err := loadBitcos(f, i, &s.b); err != nil {
			return d, nil, false, err
		}
		d = decisionFromPlanes(f, i, &s.b)
	default:
		if d, err = analyze(f, i, &s.b, s.opt.Ternarize); err != nil {
			return d, nil, false, err
		}
		if s.fs.Bitcos && d.Layout == LayoutBitcos {
			d.Layout, d.Reason = LayoutKept, "kept by the repack that wrote this file"
		}
	}
	return d, iv, sampled, d.err
}

// add puts tensor i's decision d into the report: a kept tensor in Kept, a
// ternary one in Tensors (with its interval in a sampled run) and its zero
// rows for the dead neurons.
func (s *statsRun) add(i int, d Decision, iv *stats.ZInterval, sampled bool) {
	t := s.f.Tensors[i]
	s.dec = append(s.dec, d)
	if !d.isTernary {
		if d.Layout == LayoutKept {
			s.fs.Kept = append(s.fs.Kept, stats.KeptTensor{Name: d.Name, Type: d.Type, Reason: d.Reason})
		}
		return
	}
	group := s.b.s.Group // BITCOS: as stored
	if t.Type != ggufx.TypeBITCOS {
		group = d.codec.ScaleGroup()
	} else if sampled {
		group = storedGroup(s.f, i)
	}
	ts := tensorStats(&d, group)
	if s.opt.Sample > 0 {
		if iv == nil {
			iv = exactInterval(s.f, i, d.Z, d.master)
		}
		ts.ZInterval = iv
		s.ivs = append(s.ivs, iv)
	}
	s.fs.Tensors = append(s.fs.Tensors, ts)
	if stats.FFNGateUp(t.Name) && !sampled {
		z := make([]bool, len(d.rowNNZ))
		for r, n := range d.rowNNZ {
			z[r] = n == 0
		}
		s.zeroRowsOf[t.Name] = z
	}
}

// finish completes the report: totals, what the source knows (traffic,
// the sampled total), a decode step's reads, memory, dead neurons and the
// size repack would write.
func (s *statsRun) finish(src *statsSource) (*stats.FileStats, error) {
	f, fs := s.f, s.fs
	fs.Total = stats.Total(fs.Tensors)
	src.finish(fs, s.ivs)
	fs.DecodeRead = decodeReads(f, s.dec)
	fs.Memory = stats.EstimateMemory(f.File, fs.FileBytes-int64(f.DataOffset), stats.MemoryContext)
	fs.Dead = stats.Dead(s.zeroRowsOf)
	if fs.Bitcos {
		fs.RepackBytes = f.FileSize
		return fs, nil
	}
	var err error
	if fs.RepackBytes, err = predictedSize(f, s.dec, s.opt.Ternarize); err != nil {
		return nil, err
	}
	return fs, nil
}

// analyze decides the fate of tensor i of a stock file without encoding it
// (stats). With ternarize, the projection weights of a float master are
// ternarized (master.go).
func analyze(f *input, i int, b *tensorBuf, ternarize bool) (Decision, error) {
	d, cand := preDecide(f, i, ternarize)
	if !cand || d.head != nil {
		return d, nil
	}
	return d, analyzeCandidate(f, i, &d, b)
}

// predictedSize is the exact size of the repack of a stock file whose
// tensors' decisions are dec: the reserved header (header.go), then every
// output tensor's padded data.
func predictedSize(f *input, dec []Decision, ternarize bool) (int64, error) {
	cand := make([]bool, len(f.Tensors))
	for i := range f.Tensors {
		_, cand[i] = preDecide(f, i, ternarize)
	}
	tails, err := i2sTails(f, cand)
	if err != nil {
		return 0, err
	}
	n, err := ggufx.HeaderSize(headerFor(f, dec, cand, true, tails))
	if err != nil {
		return 0, err
	}
	align := f.Alignment
	size := int64(n)
	for _, t := range headerFor(f, dec, cand, false, tails).Tensors {
		sz, err := ggufx.TensorBytes(t.Type, t.Dims)
		if err != nil {
			return 0, err
		}
		size += int64(pad(sz, align))
	}
	return size, nil
}

// decisionFromPlanes describes a BITCOS tensor already in a file.
func decisionFromPlanes(f *input, i int, b *tensorBuf) Decision {
	t := f.Tensors[i]
	d := Decision{Name: t.Name, Type: t.Type.String(), Dims: t.Dims, Source: t.Type, Layout: LayoutBitcos, isTernary: true}
	d.Weights = int64(b.p.K) * int64(b.p.Rows)
	fillCounts(&d, format.RowNonZeros(&b.p, nil))
	d.BitcosBytes = bitcosFamilyBytes(t.Name, b.p.K, b.p.Rows, &b.s, d.signBytes, f.Alignment)
	d.bitcosData = bitcosDataBytes(t.Name, b.p.K, b.p.Rows, &b.s, d.signBytes)
	return d
}

func tensorStats(d *Decision, group int) stats.TensorStats {
	n := d.Weights
	k := int64(d.Dims[0])
	rows := n / k
	ts := stats.TensorStats{Name: d.Name, Type: d.Type, Dims: d.Dims, Layout: d.Layout, Reason: d.Reason, Weights: n, Z: d.Z}
	if group > 0 {
		ts.ScaleBytes = 2 * n / int64(group)
	} else {
		ts.ScaleBytes = 4
	}
	ts.TwoBitBytes = n/4 + ts.ScaleBytes // the 2-bit layouts with these scales
	if k%256 == 0 {
		ts.TQ1Bytes = n / 256 * 54
	} else {
		ts.KernelNote = "row length not a multiple of 256: Q8_K activations do not fit"
	}
	ts.FiveTritBytes = (n + 127) / 128 * 26
	ts.BitcosBytes = n/8 + int64(d.signBytes) + 4*(rows+1) + ts.ScaleBytes
	for _, c := range d.rowNNZ {
		if c == 0 {
			ts.ZeroRows++
		}
	}
	ts.FillRates()
	return ts
}
