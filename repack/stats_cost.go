package repack

import (
	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// What running a file costs, in stats' report: the bytes one decode step
// reads by component, before and after a repack (FileStats.DecodeRead), and
// the memory the weights and an f16 KV cache take (FileStats.Memory).

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

// decodeReads estimates the bytes one decode step reads from each component,
// before (this file) and after (as repack would write it, with dec's
// decisions, including a quantized head).
func decodeReads(f *input, dec []Decision) (r struct {
	Before ReadBytes `json:"before"`
	After  ReadBytes `json:"after"`
}) {
	_, hasOutput := f.Tensor(OutputW)
	var j int
	for i, t := range f.Tensors {
		if bitcos.IsCompanion(t.Name) {
			continue
		}
		d := dec[j]
		j++
		before, after := int64(t.Size), int64(t.Size)
		// A BITCOS family's data, as the weights' memory counts it (no
		// padding, no header entries).
		if t.Type == ggufx.TypeBITCOS {
			before = d.bitcosData // the whole family
			after = before
		}
		switch {
		case d.Layout == LayoutBitcos && t.Type != ggufx.TypeBITCOS:
			after = d.bitcosData
		case d.head != nil:
			after = int64(d.head.Bytes(int(d.Weights)))
		case d.Layout == LayoutTQ2:
			k, rows := ggufx.Shape2D(t.Dims)
			after = int64(format.TQ2_0.TensorBytes(k, rows))
		}
		add := func(rb *ReadBytes, n int64) {
			switch {
			case t.Name == OutputW || (t.Name == TokenEmbd && !hasOutput):
				rb.Head += n
			case t.Name == TokenEmbd: // a lookup reads one row
				rb.Rest += n / int64(t.Dims[len(t.Dims)-1])
			case d.isTernary || t.Type == ggufx.TypeBITCOS:
				rb.Ternary += n
			default:
				rb.Rest += n
			}
			rb.Total = rb.Head + rb.Ternary + rb.Rest
		}
		add(&r.Before, before)
		add(&r.After, after)
		_ = i
	}
	return r
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

// estimateMemory: the weights as stored plus K and V in f16 for every layer
// and token of the context (2 x layers x ctx x n_embd_kv x 2 bytes), from
// llama.cpp's hyper-parameter KVs. gguf-parser-go's estimator would be the
// better tool, but it cannot read BITCOS (nor I2_S) files.
func estimateMemory(f *ggufx.File, weights, ctx int64) MemoryEstimate {
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
