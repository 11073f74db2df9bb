package repack

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Head quantization: the embedding/output head of a ternary model is float
// (BitNet b1.58 2B4T: a tied 128256 x 2560 f16 matrix, read on every token
// and larger than all ternary layers together). repack can quantize it with
// ggml's reference quantizers (format.HeadTypes), producing exactly the
// bytes llama-quantize writes for the same data. This is lossy by design;
// verify proves the head equals the reference quantization of the source.

// HeadKeep leaves a head tensor as it is.
const HeadKeep = "keep"

// Head tensor names, as llama.cpp names them.
const (
	TokenEmbd = "token_embd.weight"
	OutputW   = "output.weight"
)

// HeadPlan maps tensor names to head types from repack's flags: head applies
// to both token_embd and output; tokenEmbd and output override it per tensor.
// Empty strings and "keep" leave a tensor as it is. The names are parsed
// here, once (format.LookupHeadType); the plan carries the types.
func HeadPlan(head, tokenEmbd, output string) (map[string]format.HeadType, error) {
	plan := map[string]format.HeadType{}
	set := func(tensor, typ string) error {
		if typ == "" {
			return nil
		}
		if strings.EqualFold(typ, HeadKeep) {
			delete(plan, tensor)
			return nil
		}
		h, ok := format.LookupHeadType(typ)
		if !ok {
			return fmt.Errorf("unknown head type %q (q8_0, q6_K, q4_K or keep)", typ)
		}
		plan[tensor] = h
		return nil
	}
	for _, s := range []struct{ tensor, typ string }{
		{TokenEmbd, head}, {OutputW, head}, {TokenEmbd, tokenEmbd}, {OutputW, output},
	} {
		if err := set(s.tensor, s.typ); err != nil {
			return nil, err
		}
	}
	return plan, nil
}

// headDecision fills d for a head tensor to be quantized as h.
func headDecision(f *input, i int, d *Decision, h format.HeadType) error {
	t := f.Tensors[i]
	if !isFloatType(t.Type) {
		return fmt.Errorf("%s: tensor %q is %v: head quantization needs an F32, F16 or BF16 head", f.Path, t.Name, t.Type)
	}
	if t.Dims[0]%uint64(h.Block) != 0 {
		return fmt.Errorf("%s: tensor %q: row length %d is not a multiple of %s's block of %d", f.Path, t.Name, t.Dims[0], h.Name, h.Block)
	}
	d.Layout, d.head = h.Name, &h
	d.Reason = fmt.Sprintf("head quantized from %v (lossy)", t.Type)
	return nil
}

// floatRows converts rows [r0, r1) of float tensor t (row length k) to f32.
func floatRows(t ggufx.TensorInfo, data []byte, k, r0, r1 int, dst []float32) {
	switch t.Type {
	case ggufx.TypeF16:
		format.F16ToF32(data[2*k*r0:2*k*r1], dst)
	case ggufx.TypeBF16:
		format.BF16ToF32(data[2*k*r0:2*k*r1], dst)
	default:
		src := data[4*k*r0 : 4*k*r1]
		for j := range dst {
			dst[j] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*j:]))
		}
	}
}

// quantizeHead quantizes float tensor i of f as h into dst, rows split
// among workers goroutines (the quantizers are per-block, so the bytes do
// not depend on the split). Memory: dst plus a chunk of f32 rows per worker.
func quantizeHead(f *input, i int, h format.HeadType, dst []byte, workers int) error {
	t := f.Tensors[i]
	data, err := f.tensor(i, nil)
	if err != nil {
		return err
	}
	k, rows := ggufx.Shape2D(t.Dims)
	rowBytes := h.Bytes(k)
	const chunk = 64 // rows per step
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]float32, chunk*k)
			for r0 := range next {
				r1 := min(rows, r0+chunk)
				src := buf[:(r1-r0)*k]
				floatRows(t, data, k, r0, r1, src)
				h.Quantize(src, dst[r0*rowBytes:r1*rowBytes])
			}
		}()
	}
	for r0 := 0; r0 < rows; r0 += chunk {
		next <- r0
	}
	close(next)
	wg.Wait()
	return nil
}

// sameHead reports whether quantized tensor j of b is the reference
// quantization of float tensor i of a.
func sameHead(a *input, i int, b *input, j int, workers int) (bool, error) {
	h, ok := format.HeadTypeOf(b.Tensors[j].Type)
	if !ok || !isFloatType(a.Tensors[i].Type) {
		return false, nil
	}
	k, rows := ggufx.Shape2D(a.Tensors[i].Dims)
	if k%h.Block != 0 {
		return false, nil
	}
	want := make([]byte, h.Bytes(k*rows))
	if err := quantizeHead(a, i, h, want, workers); err != nil {
		return false, err
	}
	got, err := b.tensor(j, nil)
	if err != nil {
		return false, err
	}
	return string(got) == string(want), nil
}
