package repack

import (
	"fmt"
	"math"
	"regexp"
	"sort"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/internal/source"
)

// Stats is this package's other job, in the stats*.go files: what a file
// holds and what repack would make of it, without writing anything. It
// predicts with the repack's own decisions (plan.go: preDecide,
// analyzeCandidate, decide; header.go for the output's exact size), which
// is why it lives here. stats_sample.go estimates from sampled blocks,
// stats_source.go opens the input (URLs and safetensors checkpoints through
// internal/source), stats_cost.go says what running the file reads and
// takes.

// TensorStats is one ternary tensor's statistics. Byte counts are exact for
// the tensor's data (padding and header entries are in Decision).
type TensorStats struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Dims    []uint64 `json:"dims"`
	Layout  string   `json:"layout"`
	Reason  string   `json:"reason,omitempty"`
	Weights int64    `json:"weights"`
	Z       float64  `json:"zero_density"`
	// Bits per weight: the information floor with balanced signs,
	// h(z) + (1 - z), and each layout's rate.
	EntropyBPW   float64 `json:"entropy_bpw"`
	TwoBitBPW    float64 `json:"two_bit_bpw"`
	TQ1BPW       float64 `json:"tq1_0_bpw,omitempty"`
	FiveTritBPW  float64 `json:"five_trit_128_bpw"`
	BitcosBPW    float64 `json:"bitcos_bpw"`         // with all overheads
	BitcosRawBPW float64 `json:"bitcos_symbols_bpw"` // 2 - z, symbols only

	TwoBitBytes   int64 `json:"two_bit_bytes"` // 2 bits/weight plus the tensor's scales
	TQ1Bytes      int64 `json:"tq1_0_bytes,omitempty"`
	FiveTritBytes int64 `json:"five_trit_128_bytes"` // symbols only, the paper's reference rate
	BitcosBytes   int64 `json:"bitcos_bytes"`        // bitmap + signs + tail + row index + scales
	ScaleBytes    int64 `json:"scale_bytes"`
	ZeroRows      int   `json:"zero_rows"`
	// KernelNote says which activation type a kernel needs for this
	// tensor: Q8_K wants rows that are multiples of 256.
	KernelNote string `json:"kernel_note,omitempty"`
	// ZInterval is set in sampled mode (stats_sample.go).
	ZInterval *ZInterval `json:"z_interval,omitempty"`
}

// ModelSummary is the file's identity and size in llama.cpp's terms.
type ModelSummary struct {
	Architecture string `json:"architecture"`
	Name         string `json:"name,omitempty"`
	FileType     int64  `json:"file_type"` // general.file_type (llama_ftype), -1 when absent
	// Parameters counts the elements of every tensor but BITCOS
	// companions (which hold no parameters of their own).
	Parameters    uint64  `json:"parameters"`
	BitsPerWeight float64 `json:"bits_per_weight"` // tensor data bits (companions included) per parameter
}

// summarize reads f's identity and counts its parameters.
func summarize(f *input) ModelSummary {
	m := ModelSummary{FileType: -1}
	if kv, ok := f.KV("general.architecture"); ok {
		m.Architecture, _ = kv.AsString()
	}
	if kv, ok := f.KV("general.name"); ok {
		m.Name, _ = kv.AsString()
	}
	if kv, ok := f.KV("general.file_type"); ok {
		if v, ok := kv.AsInt64(); ok {
			m.FileType = v
		}
	}
	var bytes uint64
	for _, t := range f.Tensors {
		bytes += t.Size
		if !bitcos.IsCompanion(t.Name) {
			m.Parameters += t.Elements()
		}
	}
	if m.Parameters > 0 {
		m.BitsPerWeight = 8 * float64(bytes) / float64(m.Parameters)
	}
	return m
}

// KeptTensor is a tensor repack keeps as it is, and why.
type KeptTensor struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

// DeadNeurons counts, per layer, FFN neurons whose gate and up rows are both
// all zero.
type DeadNeurons struct {
	Layer int `json:"layer"`
	Count int `json:"count"`
	FFN   int `json:"ffn_size"`
}

// FileStats is the stats report of a file.
type FileStats struct {
	File      string        `json:"file"`
	Bitcos    bool          `json:"bitcos_file"` // a BITCOS file (else a stock one, and layouts are predictions)
	Model     ModelSummary  `json:"model"`
	FileBytes int64         `json:"file_bytes"`
	Tensors   []TensorStats `json:"tensors"`
	Total     TensorStats   `json:"total"`
	Dead      []DeadNeurons `json:"dead_neurons,omitempty"`
	// Kept lists the ternary-typed tensors repack keeps in their type
	// without analysing them (rows it cannot hold, non-ternary codes, a
	// NaN or infinite scale), with the reason.
	Kept []KeptTensor `json:"kept_tensors,omitempty"`
	// BitcosFileBytes is the exact size repack would write (for a stock
	// file) or the file's size (for a BITCOS file).
	RepackBytes int64 `json:"repack_file_bytes"`
	// Memory estimates what running the file takes (weights as stored plus
	// an f16 KV cache at MemoryContext tokens; compute buffers not counted).
	Memory MemoryEstimate `json:"memory_estimate"`
	// DecodeRead is what one decode step (one token) reads, by component,
	// in this file and as repacked.
	DecodeRead struct {
		Before ReadBytes `json:"before"`
		After  ReadBytes `json:"after"`
	} `json:"decode_step_reads"`
	// Source, Remote and Sampled describe a safetensors master, a file
	// read over HTTP and a sampled run (internal/source, stats_sample.go).
	Source  *source.Info    `json:"source,omitempty"`
	Remote  *source.Traffic `json:"remote,omitempty"`
	Sampled *SampleSummary  `json:"sampled,omitempty"`
}

// Entropy is the binary entropy h(z) in bits.
func Entropy(z float64) float64 {
	if z <= 0 || z >= 1 {
		return 0
	}
	return -z*math.Log2(z) - (1-z)*math.Log2(1-z)
}

var ffnRe = regexp.MustCompile(`^blk\.(\d+)\.ffn_(gate|up)\.weight$`)

// Stats reads every ternary tensor of the file at path (stock or BITCOS).
//
// With ternarize, a float master's projections are reported as ternarized
// (as repack --ternarize would write them).
func Stats(path string, ternarize bool, heads map[string]format.HeadType) (*FileStats, error) {
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
func StatsWith(path string, opt StatsOptions) (*FileStats, error) {
	f, src, err := openStats(path, &opt) // a safetensors master sets opt.Ternarize
	if err != nil {
		return nil, err
	}
	defer src.close()
	defer f.Close()
	f.heads = opt.Heads
	s := &statsRun{f: f, opt: opt, zeroRowsOf: map[string][]bool{},
		fs: &FileStats{File: path, FileBytes: f.FileSize, Bitcos: f.meta != nil, Model: summarize(f)}}
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
	fs         *FileStats
	b          tensorBuf    // the last tensor read (add reads a BITCOS tensor's scale group from it)
	dec        []Decision   // every tensor's but companions', in order
	ivs        []*ZInterval // sampled runs: every ternary tensor's interval
	zeroRowsOf map[string][]bool
}

// decide is tensor i's decision: estimated from sampled blocks (then
// sampled, with its interval iv), read from its planes (a BITCOS tensor),
// or analysed as repack would decide it.
func (s *statsRun) decide(i int) (d Decision, iv *ZInterval, sampled bool, err error) {
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
func (s *statsRun) add(i int, d Decision, iv *ZInterval, sampled bool) {
	t := s.f.Tensors[i]
	s.dec = append(s.dec, d)
	if !d.isTernary {
		if d.Layout == LayoutKept {
			s.fs.Kept = append(s.fs.Kept, KeptTensor{Name: d.Name, Type: d.Type, Reason: d.Reason})
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
	if ffnRe.MatchString(t.Name) && !sampled {
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
func (s *statsRun) finish(src *statsSource) (*FileStats, error) {
	f, fs := s.f, s.fs
	fs.Total = totalStats(fs.Tensors)
	src.finish(fs, s.ivs)
	fs.DecodeRead = decodeReads(f, s.dec)
	fs.Memory = estimateMemory(f.File, fs.FileBytes-int64(f.DataOffset), MemoryContext)
	fs.Dead = deadNeurons(s.zeroRowsOf)
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

func tensorStats(d *Decision, group int) TensorStats {
	n := d.Weights
	k := int64(d.Dims[0])
	rows := n / k
	ts := TensorStats{Name: d.Name, Type: d.Type, Dims: d.Dims, Layout: d.Layout, Reason: d.Reason, Weights: n, Z: d.Z}
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
	ts.fillRates()
	return ts
}

func (ts *TensorStats) fillRates() {
	n := float64(ts.Weights)
	bpw := func(b int64) float64 { return float64(8*b) / n }
	ts.EntropyBPW = Entropy(ts.Z) + (1 - ts.Z)
	ts.TwoBitBPW = bpw(ts.TwoBitBytes)
	if ts.TQ1Bytes > 0 {
		ts.TQ1BPW = bpw(ts.TQ1Bytes)
	}
	ts.FiveTritBPW = bpw(ts.FiveTritBytes)
	ts.BitcosBPW = bpw(ts.BitcosBytes)
	ts.BitcosRawBPW = 2 - ts.Z
}

func totalStats(ts []TensorStats) TensorStats {
	t := TensorStats{Name: "total"}
	var nz float64
	for _, x := range ts {
		t.Weights += x.Weights
		nz += x.Z * float64(x.Weights)
		t.TwoBitBytes += x.TwoBitBytes
		t.TQ1Bytes += x.TQ1Bytes
		t.FiveTritBytes += x.FiveTritBytes
		t.BitcosBytes += x.BitcosBytes
		t.ScaleBytes += x.ScaleBytes
		t.ZeroRows += x.ZeroRows
	}
	if t.Weights == 0 {
		return t
	}
	t.Z = nz / float64(t.Weights)
	t.fillRates()
	t.EntropyBPW = 0
	for _, x := range ts { // the floor of a mixture is the weighted sum
		t.EntropyBPW += x.EntropyBPW * float64(x.Weights) / float64(t.Weights)
	}
	return t
}

func deadNeurons(z map[string][]bool) []DeadNeurons {
	var out []DeadNeurons
	for name, gate := range z {
		m := ffnRe.FindStringSubmatch(name)
		if m[2] != "gate" {
			continue
		}
		up, ok := z[fmt.Sprintf("blk.%s.ffn_up.weight", m[1])]
		if !ok || len(up) != len(gate) {
			continue
		}
		var layer int
		fmt.Sscan(m[1], &layer)
		d := DeadNeurons{Layer: layer, FFN: len(gate)}
		for i := range gate {
			if gate[i] && up[i] {
				d.Count++
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Layer < out[b].Layer })
	return out
}
