package modelgen

import (
	"fmt"
	"math"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// ArchLlama is llama.cpp's "llama" architecture. With Spec.Experts > 0 it is
// a Mixtral-style mixture of experts: every layer's FFN is a softmax router
// blk.N.ffn_gate_inp (F32 [n_embd, n_expert]) over ternary expert tensors
// blk.N.ffn_{gate,up}_exps [n_embd, n_ff, n_expert] and
// blk.N.ffn_down_exps [n_ff, n_embd, n_expert], which llama.cpp multiplies
// with MUL_MAT_ID; <arch>.expert_count and <arch>.expert_used_count say how
// many experts there are and how many each token uses.
const ArchLlama = "llama"

// maxExperts is llama.cpp's LLAMA_MAX_EXPERTS at the pin.
const maxExperts = 1024

// checkLlama checks the llama-only fields and sets ExpertsUsed's default.
func (s *Spec) checkLlama() error {
	if s.Arch != ArchLlama {
		if s.ExpertsUsed != 0 {
			return fmt.Errorf("modelgen: ExpertsUsed is for the %s arch", ArchLlama)
		}
		return nil
	}
	switch {
	case s.Experts < 0 || s.Experts > maxExperts:
		return fmt.Errorf("modelgen: %d experts (llama.cpp takes 0..%d)", s.Experts, maxExperts)
	case s.Experts == 0 && s.ExpertsUsed != 0:
		return fmt.Errorf("modelgen: ExpertsUsed without experts")
	case s.Experts > 0 && s.ExpertsUsed == 0:
		s.ExpertsUsed = min(2, s.Experts)
	}
	if s.ExpertsUsed < 0 || s.ExpertsUsed > s.Experts {
		return fmt.Errorf("modelgen: %d experts used of %d", s.ExpertsUsed, s.Experts)
	}
	if hd := s.NEmbd / s.NHead; hd%2 != 0 {
		return fmt.Errorf("modelgen: llama needs an even head size (RoPE), not %d", hd)
	}
	return nil
}

// planLlamaLayer adds layer l of a llama model: what llama.cpp's
// llama_model_llama::load_arch_tensors creates, no more (the loader refuses
// unclaimed tensors).
func (s *Spec) planLlamaLayer(l int,
	add func(name string, kind int, typ ggufx.GGMLType, dims ...uint64) *tensor,
	proj func(l int, name string, kind int, dims ...uint64) *tensor) {
	E, F, X := uint64(s.NEmbd), uint64(s.NFF), uint64(s.Experts)
	s.planAttention(l, add, proj)
	add(fmt.Sprintf("blk.%d.ffn_norm.weight", l), kindNorm, ggufx.TypeF32, E)
	if X == 0 {
		// Neuron 3 is dead in every layer: its gate and up rows are all zero.
		proj(l, "ffn_gate", kindTernary, E, F).zeroRows = []int{3}
		proj(l, "ffn_up", kindTernary, E, F).zeroRows = []int{3, 7}
		proj(l, "ffn_down", kindTernary, F, E)
		return
	}
	add(fmt.Sprintf("blk.%d.ffn_gate_inp.weight", l), kindRouter, ggufx.TypeF32, E, X)
	exps := func(name string, dims ...uint64) *tensor {
		t := add(fmt.Sprintf("blk.%d.%s.weight", l, name), kindTernary, s.Type, dims...)
		if s.ScaleTensors {
			// llama.cpp's per-expert scales: F32 [n_expert]
			add(fmt.Sprintf("blk.%d.%s.scale", l, name), kindScale, ggufx.TypeF32, X)
		}
		return t
	}
	// Neuron 3 of expert 0 and neuron 5 of the last expert are dead: their
	// gate and up rows are all zero (rows of a 3-D tensor count across
	// experts: row e*n_ff+i is expert e's neuron i).
	last := int(X-1)*int(F) + 5
	exps("ffn_gate_exps", E, F, X).zeroRows = []int{3, last}
	exps("ffn_up_exps", E, F, X).zeroRows = []int{3, last}
	exps("ffn_down_exps", F, E, X)
}

// routerScale is the router weights' standard deviation: with an RMS-normed
// input (|x| about sqrt(n_embd)) the expert logits are about N(0, 1), so
// tokens spread over the experts.
func (s *Spec) routerScale() float64 {
	return 1 / math.Sqrt(float64(s.NEmbd))
}

// llamaKVs are the llama arch's KVs beyond the common ones.
func (s *Spec) llamaKVs() []ggufx.KV {
	if s.Arch != ArchLlama {
		return nil
	}
	a := s.Arch
	kv := []ggufx.KV{ggufx.KVUint32(a+".rope.dimension_count", uint32(s.NEmbd/s.NHead))}
	if s.Experts > 0 {
		kv = append(kv,
			ggufx.KVUint32(a+".expert_count", uint32(s.Experts)),
			ggufx.KVUint32(a+".expert_used_count", uint32(s.ExpertsUsed)))
	}
	return kv
}

// llamaGain scales a llama model's ternary scales so that a projection
// keeps its input's variance (the mean scale becomes 1/sqrt(k*(1-z)), k the
// row length, z the zero density): the layers, and so the experts, move
// the logits instead of vanishing next to the embedding, so that the
// model's greedy output depends on them. The bitnet archs keep the scales
// makeScales draws (0.002..0.022, those of published TQ2_0 files).
func (s *Spec) llamaGain(sc *format.Scales, k int, z float64) {
	if s.Arch != ArchLlama {
		return
	}
	target := 1 / math.Sqrt(float64(k)*(1-z))
	if sc.Group == 0 {
		// one F32 scale per tensor, drawn in 0.5..1.5
		sc.F32 = math.Float32bits(math.Float32frombits(sc.F32) * float32(target))
		return
	}
	g := float32(target / 0.012) // 0.012: the mean of makeScales' 0.002..0.022
	for i, h := range sc.F16 {
		sc.F16[i] = float16.Fromfloat32(float16.Frombits(h).Float32() * g).Bits()
	}
}
