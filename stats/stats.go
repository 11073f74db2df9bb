// Package stats holds what `gguf-bitcos stats` reports of a file (FileStats:
// per ternary tensor its zero density, bits per weight and bytes under each
// layout, the model's totals, dead neurons, a decode step's reads, memory)
// and the numbers behind it: the entropy floor, totals, the memory
// estimate, and the sampled estimator with its intervals (sample.go).
// repack.StatsWith fills the report with repack's own decisions: what a
// tensor would become is repack's to say.
package stats

import (
	"fmt"
	"math"
	"regexp"
	"sort"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/source"
)

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
	// RepackBytes is the exact size repack would write (for a stock file)
	// or the file's size (for a BITCOS file).
	RepackBytes int64 `json:"repack_file_bytes"`
	// Memory estimates what running the file takes (weights as stored plus
	// an f16 KV cache at MemoryContext tokens; compute buffers not counted).
	Memory MemoryEstimate `json:"memory_estimate"`
	// DecodeRead is what one decode step (one token) reads, by component,
	// in this file and as repacked.
	DecodeRead Reads `json:"decode_step_reads"`
	// Source, Remote and Sampled describe a safetensors master, a file
	// read over HTTP and a sampled run (internal/source, sample.go).
	Source  *source.Info    `json:"source,omitempty"`
	Remote  *source.Traffic `json:"remote,omitempty"`
	Sampled *SampleSummary  `json:"sampled,omitempty"`
}

// TensorStats is one ternary tensor's statistics. Byte counts are exact for
// the tensor's data (padding and header entries are in repack's Decision).
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
	// ZInterval is set in sampled mode (sample.go).
	ZInterval *ZInterval `json:"z_interval,omitempty"`
}

// FillRates sets ts's bits per weight from its byte counts and z.
func (ts *TensorStats) FillRates() {
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

// Total is the model's line: the sums of ts, its z weighted by weights, and
// the entropy floor of the mixture.
func Total(ts []TensorStats) TensorStats {
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
	t.FillRates()
	t.EntropyBPW = 0
	for _, x := range ts { // the floor of a mixture is the weighted sum
		t.EntropyBPW += x.EntropyBPW * float64(x.Weights) / float64(t.Weights)
	}
	return t
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

// Summarize reads f's identity and counts its parameters.
func Summarize(f *ggufx.File) ModelSummary {
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

var ffnRe = regexp.MustCompile(`^blk\.(\d+)\.ffn_(gate|up)\.weight$`)

// FFNGateUp reports whether a tensor named name is an FFN gate or up
// projection, whose zero rows Dead counts.
func FFNGateUp(name string) bool { return ffnRe.MatchString(name) }

// Dead counts, per layer, the FFN neurons whose gate and up rows are both
// all zero: z maps the names FFNGateUp accepts to each row's zero-ness.
func Dead(z map[string][]bool) []DeadNeurons {
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

// Entropy is the binary entropy h(z) in bits.
func Entropy(z float64) float64 {
	if z <= 0 || z >= 1 {
		return 0
	}
	return -z*math.Log2(z) - (1-z)*math.Log2(1-z)
}

// ReadBytes splits the weight bytes one decode step reads: the output head
// (output.weight, or token_embd when the embeddings are tied), the ternary
// layers (all their data: bitmap, signs, row index and scales for BITCOS),
// and the rest (norms, other float weights, one row of token_embd when the
// head is separate).
type ReadBytes struct {
	Head    int64 `json:"head"`
	Ternary int64 `json:"ternary"`
	Rest    int64 `json:"rest"`
	Total   int64 `json:"total"`
}

// Reads is what one decode step reads, by component, in a file and as
// repacked.
type Reads struct {
	Before ReadBytes `json:"before"`
	After  ReadBytes `json:"after"`
}

// MemoryContext is the context length of the memory estimate.
const MemoryContext = 4096

// MemoryEstimate is a running model's memory by part.
type MemoryEstimate struct {
	Weights int64 `json:"weights"`
	KVCache int64 `json:"kv_cache_f16"`
	Context int64 `json:"context"`
	Total   int64 `json:"total"`
}

// EstimateMemory: the weights as stored plus K and V in f16 for every layer
// and token of the context (2 x layers x ctx x n_embd_kv x 2 bytes), from
// llama.cpp's hyper-parameter KVs. gguf-parser-go's estimator would be the
// better tool, but it cannot read BITCOS (nor I2_S) files.
func EstimateMemory(f *ggufx.File, weights, ctx int64) MemoryEstimate {
	m := MemoryEstimate{Weights: weights, Context: ctx}
	arch := ""
	if kv, ok := f.KV("general.architecture"); ok {
		arch, _ = kv.AsString()
	}
	get := func(k string) int64 {
		kv, ok := f.KV(arch + "." + k)
		if !ok {
			return 0
		}
		v, _ := kv.AsUint64()
		return int64(v)
	}
	layers, embd, heads, headsKV := get("block_count"), get("embedding_length"), get("attention.head_count"), get("attention.head_count_kv")
	if heads > 0 && headsKV > 0 {
		m.KVCache = 2 * layers * ctx * (embd / heads * headsKV) * 2
	}
	m.Total = m.Weights + m.KVCache
	return m
}
