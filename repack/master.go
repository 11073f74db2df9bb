package repack

import (
	"encoding/binary"
	"fmt"
	"math"
	"regexp"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Float masters (F16, BF16, F32 checkpoints of a ternary-trained model) are
// the one lossy input: their projection weights are ternarized with BitNet's
// absmean rule (format.Ternarize), one scale s per tensor. The result is
// defined as what a TQ2_0 file of the same values holds: codes, and every
// 256-block's d = fp16(s). So a master repack equals "ternarize to TQ2_0,
// then repack", its tensors unpack to TQ2_0, and a tensor for which BITCOS
// is not smaller is written as TQ2_0.

// projectionRe matches the weights BitNet ternarizes: attention and FFN
// projections (dense or expert). Embeddings, head and norms stay float.
var projectionRe = regexp.MustCompile(`^blk\.\d+\.(attn_q|attn_k|attn_v|attn_output|attn_qkv|ffn_gate|ffn_up|ffn_down)(_exps)?\.weight$`)

func isFloatType(t ggufx.GGMLType) bool {
	return t == ggufx.TypeF16 || t == ggufx.TypeBF16 || t == ggufx.TypeF32
}

// ternarizable reports whether tensor t of a master is ternarized.
func ternarizable(t ggufx.TensorInfo) bool {
	return isFloatType(t.Type) && projectionRe.MatchString(t.Name) && t.Dims[0]%256 == 0
}

// loadMaster ternarizes float tensor i into b.p and gives b.s TQ2_0 scales.
func loadMaster(f *input, i int, b *tensorBuf) error {
	t := f.Tensors[i]
	k, rows := ggufx.Shape2D(t.Dims)
	raw, err := f.tensor(i, b.raw)
	if err != nil {
		return err
	}
	b.raw = raw
	w := make([]float32, k*rows)
	switch t.Type {
	case ggufx.TypeF16:
		format.F16ToF32(raw, w)
	case ggufx.TypeBF16:
		format.BF16ToF32(raw, w)
	case ggufx.TypeF32:
		for j := range w {
			w[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
		}
	default:
		return fmt.Errorf("%s: tensor %q: %v is not a float master type", f.Path, t.Name, t.Type)
	}
	s := format.Ternarize(w, k, rows, &b.p)
	d := float16.Fromfloat32(s).Bits()
	b.s = format.Scales{Group: 256, F16: make([]uint16, k/256*rows)}
	for j := range b.s.F16 {
		b.s.F16[j] = d
	}
	return checkScales(f.Path, t.Name, &b.s)
}

// loadSource loads tensor i as its decision says: a stock ternary tensor, or
// a master tensor ternarized.
func loadSource(f *input, i int, b *tensorBuf, d *Decision) error {
	if d.master {
		return loadMaster(f, i, b)
	}
	return loadStock(f, i, b)
}
