package repack

import (
	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// What running a file costs, in stats' report: the bytes one decode step
// reads by component, before and after a repack (stats.FileStats.DecodeRead), and
// the memory the weights and an f16 KV cache take (stats.FileStats.Memory).

// decodeReads estimates the bytes one decode step reads from each component,
// before (this file) and after (as repack would write it, with dec's
// decisions, including a quantized head).
func decodeReads(f *input, dec []Decision) (r stats.Reads) {
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
		add := func(rb *stats.ReadBytes, n int64) {
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
