package safetensors

import (
	"regexp"
	"strings"
)

// Hugging Face llama-family checkpoints name tensors differently from
// llama.cpp: hfLayer maps a layer tensor (after "model.layers.N.") to its
// llama.cpp name (after "blk.N."), BitNet b1.58's sub-norms included, as
// gguf-py's tensor_mapping does at the pinned llama.cpp; hfTop the others.
var hfLayer = map[string]string{
	"self_attn.q_proj.weight":         "attn_q.weight",
	"self_attn.k_proj.weight":         "attn_k.weight",
	"self_attn.v_proj.weight":         "attn_v.weight",
	"self_attn.o_proj.weight":         "attn_output.weight",
	"mlp.gate_proj.weight":            "ffn_gate.weight",
	"mlp.up_proj.weight":              "ffn_up.weight",
	"mlp.down_proj.weight":            "ffn_down.weight",
	"input_layernorm.weight":          "attn_norm.weight",
	"post_attention_layernorm.weight": "ffn_norm.weight",
	"self_attn.inner_attn_ln.weight":  "attn_sub_norm.weight",
	"mlp.ffn_sub_norm.weight":         "ffn_sub_norm.weight",
}

var hfTop = map[string]string{
	"model.embed_tokens.weight": "token_embd.weight",
	"model.norm.weight":         "output_norm.weight",
	"lm_head.weight":            "output.weight",
}

var (
	hfLayerRe   = regexp.MustCompile(`^model\.layers\.(\d+)\.(.+)$`)
	ggufLayerRe = regexp.MustCompile(`^blk\.(\d+)\.(.+)$`)
)

// GGUFName is the llama.cpp name of a checkpoint tensor; a name it does not
// know (a GGUF name included) is returned unchanged.
func GGUFName(hf string) string {
	if g, ok := hfTop[hf]; ok {
		return g
	}
	if m := hfLayerRe.FindStringSubmatch(hf); m != nil {
		if g, ok := hfLayer[m[2]]; ok {
			return "blk." + m[1] + "." + g
		}
	}
	return hf
}

// HFName is GGUFName's inverse (fixtures written as a checkpoint would be).
func HFName(gguf string) string {
	for h, g := range hfTop {
		if g == gguf {
			return h
		}
	}
	if m := ggufLayerRe.FindStringSubmatch(gguf); m != nil {
		for h, g := range hfLayer {
			if g == m[2] {
				return "model.layers." + m[1] + "." + h
			}
		}
	}
	return gguf
}

// IsSafetensors reports whether name is a safetensors file or index.
func IsSafetensors(name string) bool {
	return strings.HasSuffix(name, ".safetensors") || strings.HasSuffix(name, ".safetensors.index.json")
}
