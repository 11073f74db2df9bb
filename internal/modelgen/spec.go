// Package modelgen writes small (and, for benchmarks, large) bitnet-architecture
// GGUF models, or llama ones (dense, or a mixture of experts), with realistic
// ternary statistics: every ternary tensor gets its own zero density in
// [ZMin, ZMax] (published checkpoints: 30-52%), a few all-zero rows and a few
// zero-scale blocks. Models are written tensor by
// tensor, so memory stays bounded by one tensor whatever the model size.
package modelgen

import (
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Spec describes a generated model.
type Spec struct {
	Arch    string // "bitnet" (upstream llama.cpp), "bitnet-b1.58" (BitNet's I2_S files) or "llama" (ArchLlama: dense, or MoE with Experts)
	NEmbd   int
	NFF     int
	NLayer  int
	NHead   int
	NHeadKV int
	NVocab  int // at least 300: special, byte and whitespace tokens come first

	// Type is the ternary weights' type: TQ2_0, TQ1_0, Q2_0 or I2_S, or a
	// float master type (F16, BF16, F32) holding unquantized weights.
	Type ggufx.GGMLType
	// HeadType is token_embd's (and output's) type: F32, F16 or BF16, or
	// Type itself when that is a ternary type (a ternary embedding, as some
	// TQ2_0 conversions have: its repack needs GET_ROWS on BITCOS). The zero
	// value is F32; Small and Shape2B set F16.
	HeadType ggufx.GGMLType
	// Output adds a separate output.weight head (untied embeddings).
	Output bool

	Seed       uint64
	ZMin, ZMax float64 // per-tensor zero density range; 0,0 means 0.30..0.52

	// Experts > 0 adds 3-D expert tensors blk.N.ffn_{gate,up,down}_exps of
	// shape [K, N, Experts] in the ternary type: to blk.0 only, next to the
	// dense FFN, for the bitnet archs (which llama.cpp does not run with
	// experts); for ArchLlama, to every layer in place of the dense FFN, with
	// a router, a Mixtral-style MoE that llama.cpp runs (MUL_MAT_ID).
	Experts int
	// ExpertsUsed is llama.expert_used_count, the experts each token goes
	// through (ArchLlama only); 0 means min(2, Experts).
	ExpertsUsed int
	// OddTensor adds a ternary-typed tensor whose row length is not a
	// multiple of 128 when the type allows it (Q2_0: K = 192), else a float
	// tensor of that row length: it must be kept as is.
	OddTensor bool
	// NonTernary writes code 3 into one weight of blk.0.attn_q (Q2_0, TQ2_0
	// and I2_S only): that tensor must be kept as is.
	NonTernary bool
	// ScaleTensors adds BitNet's optional per-projection "<base>.scale" F32 {1}
	// tensors.
	ScaleTensors bool
	// Mixed, when not empty, makes a file of several ternary source types
	// (as repack allows): the bitnet archs' projections take these types in
	// turn, in the order the model lists them; Type is still the file's
	// general.file_type and, for a ternary embedding, token_embd's type.
	Mixed []ggufx.GGMLType
}

// Small is a tiny model for fixtures and unit tests.
func Small(t ggufx.GGMLType, seed uint64) Spec {
	return Spec{Arch: "bitnet", NEmbd: 256, NFF: 512, NLayer: 2, NHead: 4, NHeadKV: 2, NVocab: 320,
		Type: t, HeadType: ggufx.TypeF16, Seed: seed}
}

// Shape2B is BitNet b1.58 2B4T's shape (2560/6912, 30 layers, GQA 20/5,
// vocab 128256, tied f16 head): about 1.2 GB in TQ2_0.
func Shape2B(t ggufx.GGMLType, seed uint64) Spec {
	return Spec{Arch: "bitnet", NEmbd: 2560, NFF: 6912, NLayer: 30, NHead: 20, NHeadKV: 5, NVocab: 128256,
		Type: t, HeadType: ggufx.TypeF16, Seed: seed}
}

func (s *Spec) check() error {
	switch {
	case s.NEmbd <= 0 || s.NFF <= 0 || s.NLayer <= 0 || s.NHead <= 0 || s.NHeadKV <= 0:
		return fmt.Errorf("modelgen: dimensions must be positive")
	case s.NEmbd%s.NHead != 0 || s.NHead%s.NHeadKV != 0:
		return fmt.Errorf("modelgen: heads must divide n_embd and head_count_kv must divide head_count")
	case s.NVocab < 300:
		return fmt.Errorf("modelgen: vocabulary must have at least 300 tokens")
	}
	if s.ZMin == 0 && s.ZMax == 0 {
		s.ZMin, s.ZMax = 0.30, 0.52
	}
	switch s.HeadType {
	case ggufx.TypeF32, ggufx.TypeF16, ggufx.TypeBF16:
	default:
		if s.HeadType != s.Type || format.CodecFor(s.Type) == nil {
			return fmt.Errorf("modelgen: head type %v is not F32, F16, BF16 or the ternary type %v", s.HeadType, s.Type)
		}
	}
	if s.Arch == "" {
		s.Arch = "bitnet"
	}
	for _, t := range s.Mixed {
		if format.CodecFor(t) == nil {
			return fmt.Errorf("modelgen: mixed type %v is not a ternary type", t)
		}
	}
	if len(s.Mixed) > 0 && (s.Arch == ArchLlama || s.NonTernary || isMaster(s.Type)) {
		return fmt.Errorf("modelgen: mixed types are for the bitnet archs' ternary projections (no NonTernary)")
	}
	return s.checkLlama()
}
