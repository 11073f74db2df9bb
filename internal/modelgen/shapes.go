package modelgen

import "github.com/gguf-bitcos/gguf-bitcos/ggufx"

// The larger ternary checkpoints people run, by their configs' sizes (dense
// llama arch, SwiGLU FFN, tied f16 head here; their real heads are untied).

// Shape8B is Llama3-8B-1.58's shape (HF1BitLLM/Llama3-8B-1.58-100B-tokens:
// 4096/14336, 32 layers, GQA 32/8, vocab 128256): about 2.9 GB in TQ2_0 with
// its 1 GiB f16 head.
func Shape8B(t ggufx.GGMLType, seed uint64) Spec {
	return Spec{Arch: ArchLlama, NEmbd: 4096, NFF: 14336, NLayer: 32, NHead: 32, NHeadKV: 8, NVocab: 128256,
		Type: t, HeadType: ggufx.TypeF16, Seed: seed}
}

// Shape10B is Falcon3-10B-1.58bit's shape (tiiuae/Falcon3-10B-Instruct-1.58bit:
// 3072/23040, 40 layers, GQA 12/4 with 256-wide heads, vocab 131072): about
// 3.3 GB in TQ2_0.
func Shape10B(t ggufx.GGMLType, seed uint64) Spec {
	return Spec{Arch: ArchLlama, NEmbd: 3072, NFF: 23040, NLayer: 40, NHead: 12, NHeadKV: 4, NVocab: 131072,
		Type: t, HeadType: ggufx.TypeF16, Seed: seed}
}
