package repack

import (
	"fmt"
	"sort"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// The output header is built twice. Repack writes in one pass: before any
// tensor is read, it reserves the header of the outcome where every
// candidate becomes BITCOS (the header's size does not depend on what the
// sign streams hold: dims are fixed-width), streams the data after it, and
// at the end writes the real header into that room. A candidate that was
// kept leaves room over, which the bitcos.header_pad KV fills exactly.

// headerFor builds the header of an output. With reserve, every candidate
// counts as BITCOS; otherwise the decisions in dec say. tails holds the
// I2_S tail bytes (after the scale) of candidates, by tensor index.
func headerFor(f *input, dec []Decision, cand []bool, reserve bool, tails map[int][]byte) ggufx.Header {
	h := ggufx.HeaderFromFile(f.File)
	h.Tensors = nil
	var srcTypes []string
	var tailKVs []ggufx.KV
	var nz, n int64
	weights := map[ggufx.GGMLType]int64{}
	master := ""
	anyCand := false
	for i, t := range f.Tensors {
		d := &dec[i]
		if cand[i] && d.head == nil {
			anyCand = true
			weights[d.Source] += d.Weights
			if d.master {
				master = t.Type.String()
			}
		}
		h.Tensors = append(h.Tensors, outputTensors(f, i, d, reserve && cand[i])...)
		if d.Layout == LayoutBitcos || (reserve && cand[i] && d.head == nil) {
			srcTypes = append(srcTypes, d.Source.String())
			nz += d.Weights - d.NonZero
			n += d.Weights
			if tail, ok := tails[i]; ok && !allZero(tail) {
				tailKVs = append(tailKVs, ggufx.KVUint8Array(bitcos.KeyI2STail+t.Name, tail))
			}
		}
	}
	if !anyCand {
		return h
	}
	// The file's ternary source type: the one most candidate weights have.
	main := ggufx.GGMLType(0)
	for t, w := range weights {
		if main == 0 || w > weights[main] || (w == weights[main] && t < main) {
			main = t
		}
	}
	z := float32(0)
	if n > 0 && !reserve {
		z = float32(float64(nz) / float64(n))
	}
	var srcFileType *ggufx.KV
	h.KVs, srcFileType = fileTypeKVs(h.KVs)
	h.KVs = append(h.KVs,
		ggufx.KVUint32(bitcos.KeyVersion, bitcos.FormatVersion),
		ggufx.KVString(bitcos.KeySourceType, main.String()),
		ggufx.KVFloat32(bitcos.KeyZeroDensity, z),
		ggufx.KVStringArray(bitcos.KeySourceTypes, srcTypes),
	)
	if master != "" {
		h.KVs = append(h.KVs, ggufx.KVString(bitcos.KeyMasterType, master))
	}
	if srcFileType != nil {
		h.KVs = append(h.KVs, *srcFileType)
	}
	sort.Slice(tailKVs, func(a, b int) bool { return tailKVs[a].Key < tailKVs[b].Key })
	h.KVs = append(h.KVs, tailKVs...)
	return h
}

// outputTensors lists the output tensors that input tensor i becomes with
// decision d: a BITCOS weight and its three companions, or one tensor. With
// reserve (given for candidates only), a candidate that is not a head counts
// as BITCOS with an empty sign stream (the header's size does not depend on
// the stream's length).
func outputTensors(f *input, i int, d *Decision, reserve bool) []ggufx.TensorInfo {
	t := f.Tensors[i]
	switch {
	case d.Layout == LayoutBitcos || (reserve && d.head == nil):
		k, rows := ggufx.Shape2D(t.Dims)
		signBytes := d.signBytes
		if reserve {
			signBytes = format.SignTailBytes
		}
		s := format.Scales{Group: d.codec.ScaleGroup()}
		return append([]ggufx.TensorInfo{{Name: t.Name, Dims: t.Dims, Type: ggufx.TypeBITCOS}},
			companionInfos(t.Name, k, rows, &s, signBytes)...)
	case d.head != nil:
		return []ggufx.TensorInfo{{Name: t.Name, Dims: t.Dims, Type: d.head.GGMLType}}
	case d.Layout == LayoutTQ2:
		return []ggufx.TensorInfo{{Name: t.Name, Dims: t.Dims, Type: ggufx.TypeTQ2_0}}
	}
	return []ggufx.TensorInfo{{Name: t.Name, Dims: t.Dims, Type: t.Type}}
}

// fitHeader returns h grown by a bitcos.header_pad KV so that its padded
// size is exactly size (h's own size when it already is).
func fitHeader(h ggufx.Header, size uint64) (ggufx.Header, error) {
	got, err := ggufx.HeaderSize(h)
	if err != nil {
		return h, err
	}
	if got == size {
		return h, nil
	}
	if got > size {
		return h, fmt.Errorf("internal error: the header needs %d bytes, %d were reserved", got, size)
	}
	kvs := h.KVs
	// The pad KV costs 8+len(key) (key) + 4 (type) + 4 (element type) + 8
	// (count) bytes plus its elements; search the element count that lands
	// the padded size on size (sizes step by the alignment).
	fixed := uint64(8 + len(bitcos.KeyHeaderPad) + 4 + 4 + 8)
	start := uint64(0)
	if size-got > fixed+h.Alignment {
		start = size - got - fixed - h.Alignment
	}
	for n := start; n < start+3*h.Alignment+fixed; n++ {
		h.KVs = append(kvs[:len(kvs):len(kvs)], ggufx.KVUint8Array(bitcos.KeyHeaderPad, make([]byte, n)))
		if got, err := ggufx.HeaderSize(h); err == nil && got == size {
			return h, nil
		}
	}
	return h, fmt.Errorf("internal error: no header pad fits %d reserved bytes", size)
}

// i2sTails reads the tail bytes after the scale of every I2_S candidate.
func i2sTails(f *input, cand []bool) (map[int][]byte, error) {
	tails := map[int][]byte{}
	for i, t := range f.Tensors {
		if !cand[i] || t.Type != ggufx.TypeI2_S || t.Size < ggufx.I2STailBytes {
			continue
		}
		buf := make([]byte, ggufx.I2STailBytes-4)
		if _, err := f.Section(i).ReadAt(buf, int64(t.Size)-int64(len(buf))); err != nil {
			return nil, fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
		}
		tails[i] = buf
	}
	return tails, nil
}
