package modelgen

import (
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// kvs returns the model's metadata: llama.cpp's hyper-parameters for the arch
// (bitnet's; llama adds rope.dimension_count and the expert counts) and
// an SPM-style tokenizer whose vocabulary contains whitespace-only tokens
// (" ", "\t", "\n", "  "), which a byte-faithful rewrite must keep.
func (s *Spec) kvs() []ggufx.KV {
	a := s.Arch
	kv := []ggufx.KV{
		ggufx.KVString("general.architecture", a),
		ggufx.KVString("general.name", fmt.Sprintf("gguf-bitcos generated %s %v", a, s.Type)),
	}
	if ft, ok := fileType[s.Type]; ok {
		kv = append(kv, ggufx.KVUint32("general.file_type", ft))
	}
	kv = append(kv,
		ggufx.KVUint32("general.quantization_version", 2),
		ggufx.KVUint32(a+".vocab_size", uint32(s.NVocab)),
		ggufx.KVUint32(a+".context_length", 4096),
		ggufx.KVUint32(a+".embedding_length", uint32(s.NEmbd)),
		ggufx.KVUint32(a+".feed_forward_length", uint32(s.NFF)),
		ggufx.KVUint32(a+".block_count", uint32(s.NLayer)),
		ggufx.KVUint32(a+".attention.head_count", uint32(s.NHead)),
		ggufx.KVUint32(a+".attention.head_count_kv", uint32(s.NHeadKV)),
	)
	kv = append(kv, s.llamaKVs()...)
	kv = append(kv,
		ggufx.KVFloat32(a+".rope.freq_base", 500000),
		ggufx.KVFloat32(a+".attention.layer_norm_rms_epsilon", 1e-5),
		ggufx.KVString("tokenizer.ggml.model", "llama"),
	)
	toks, scores, types := vocab(s.NVocab)
	kv = append(kv,
		ggufx.KVStringArray("tokenizer.ggml.tokens", toks),
		ggufx.KVFloat32Array("tokenizer.ggml.scores", scores),
		ggufx.KVInt32Array("tokenizer.ggml.token_type", types),
		ggufx.KVUint32("tokenizer.ggml.bos_token_id", 1),
		ggufx.KVUint32("tokenizer.ggml.eos_token_id", 2),
		ggufx.KVUint32("tokenizer.ggml.unknown_token_id", 0),
		ggufx.KVBool("tokenizer.ggml.add_bos_token", true),
	)
	return kv
}

// fileType maps the ternary type to llama.cpp's general.file_type.
var fileType = map[ggufx.GGMLType]uint32{
	ggufx.TypeF32: 0, ggufx.TypeF16: 1, ggufx.TypeBF16: 32,
	ggufx.TypeTQ1_0: 36, ggufx.TypeTQ2_0: 37, ggufx.TypeQ2_0: 41,
}

// vocab builds an SPM vocabulary: <unk> <s> </s>, 256 byte tokens, four
// whitespace-only tokens, then made-up words.
func vocab(n int) (toks []string, scores []float32, types []int32) {
	const (
		normal  = 1
		unknown = 2
		control = 3
		byteTok = 6
	)
	add := func(t string, typ int32) {
		toks = append(toks, t)
		scores = append(scores, -float32(len(toks)))
		types = append(types, typ)
	}
	add("<unk>", unknown)
	add("<s>", control)
	add("</s>", control)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), byteTok)
	}
	for _, t := range []string{" ", "\t", "\n", "  ", "\u2581", "\u2581\u2581"} {
		add(t, normal)
	}
	letters := "etaoinshrdlucmfwypvbgkjqxz"
	for i := 0; len(toks) < n; i++ {
		w := "\u2581"
		for j := i; ; j /= len(letters) {
			w += string(letters[j%len(letters)])
			if j < len(letters) {
				break
			}
		}
		add(w, normal)
	}
	return
}
