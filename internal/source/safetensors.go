package source

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
)

// A safetensors master (a Hugging Face checkpoint, one file or shards with
// model.safetensors.index.json) is served as the GGUF master it converts
// to: its tensors under llama.cpp's names, dims reversed (safetensors is
// outermost first, GGUF innermost first; the bytes are the same row-major
// data), each tensor's bytes read from its shard on demand
// (ggufsplit.Virtual). stats then ternarizes the projections exactly as for a
// GGUF master (repack/master.go, format.Ternarize) and reads one tensor at
// a time.
// Converters may permute rows (llama.cpp's permutes Q and K for RoPE);
// z, zero-row counts and layout choices do not depend on row order.

// ggmlOfDType is the GGUF type of a safetensors dtype. Integer dtypes of
// the same width stand in for the unsigned ones and booleans: such tensors
// are counted as parameters, never decoded.
var ggmlOfDType = map[string]ggufx.GGMLType{
	"F32": ggufx.TypeF32, "F16": ggufx.TypeF16, "BF16": ggufx.TypeBF16, "F64": ggufx.TypeF64,
	"I8": ggufx.TypeI8, "U8": ggufx.TypeI8, "BOOL": ggufx.TypeI8,
	"I16": ggufx.TypeI16, "U16": ggufx.TypeI16,
	"I32": ggufx.TypeI32, "U32": ggufx.TypeI32,
	"I64": ggufx.TypeI64, "U64": ggufx.TypeI64,
}

// Safetensors serves a safetensors file, or the shards an index lists,
// local or remote, as one GGUF master.
func (s *Source) Safetensors(name string) (*ggufx.File, error) {
	files := []string{name}
	var ix *safetensors.Index
	if strings.HasSuffix(name, ".json") {
		b, err := s.readSmall(name)
		if err != nil {
			return nil, err
		}
		if ix, err = safetensors.ParseIndex(b, name); err != nil {
			return nil, err
		}
		files = files[:0]
		for _, f := range ix.Files {
			files = append(files, sibling(name, f))
		}
	}
	s.info = &Info{Format: "safetensors", Files: files}
	h := ggufx.Header{Version: 3, Alignment: ggufx.DefaultAlignment,
		KVs: []ggufx.KV{ggufx.KVString("general.name", strings.TrimSuffix(strings.TrimSuffix(path2base(name), ".index.json"), ".safetensors"))}}
	kvs, err := s.configKVs(sibling(name, safetensors.ConfigName))
	if err != nil {
		return nil, err
	}
	h.KVs = append(h.KVs, kvs...)
	var refs []ggufsplit.Source
	seen := map[string]string{}
	for k, fname := range files {
		r, size, err := s.openAt(fname)
		if err != nil {
			return nil, err
		}
		s.info.Bytes += size
		sf, err := safetensors.Parse(r, size, fname)
		if err != nil {
			return nil, err
		}
		for _, t := range sf.Tensors {
			if ix != nil && ix.WeightMap[t.Name] != ix.Files[k] {
				return nil, fmt.Errorf("%s: tensor %q is not listed for this shard in %s", fname, t.Name, name)
			}
			typ, ok := ggmlOfDType[t.DType]
			g := safetensors.GGUFName(t.Name)
			switch {
			case !ok || len(t.Shape) > ggufx.MaxDims || t.Elements() == 0 || len(g) > ggufx.MaxNameLength:
				s.info.Omitted = append(s.info.Omitted, fmt.Sprintf("%s (%s %v)", t.Name, t.DType, t.Shape))
				continue
			case seen[g] != "":
				return nil, fmt.Errorf("%s: tensors %q and %q both name %s", name, seen[g], t.Name, g)
			}
			seen[g] = t.Name
			dims := []uint64{1}
			if len(t.Shape) > 0 {
				dims = make([]uint64, len(t.Shape))
				for j, d := range t.Shape {
					dims[len(dims)-1-j] = d
				}
			}
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: g, Type: typ, Dims: dims})
			refs = append(refs, ggufsplit.Source{R: r, Off: t.Offset})
		}
	}
	if ix != nil && len(seen)+len(s.info.Omitted) != len(ix.WeightMap) {
		return nil, fmt.Errorf("%s: the index lists %d tensors, its shards hold %d", name, len(ix.WeightMap), len(seen)+len(s.info.Omitted))
	}
	f, err := ggufsplit.Virtual(h, refs, name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// readSmall reads a whole small file (an index, a config).
func (s *Source) readSmall(name string) ([]byte, error) {
	r, size, err := s.openAt(name)
	if err != nil {
		return nil, err
	}
	if size > safetensors.MaxHeaderBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", name, size, safetensors.MaxHeaderBytes)
	}
	b := make([]byte, size)
	if n, err := r.ReadAt(b, 0); int64(n) < size {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// configKVs turns the checkpoint's config.json, when there is one, into the
// KVs the report's model line and memory estimate read: the architecture
// is the config's model_type. A missing config is no error (the report then
// has no architecture and no KV cache estimate); an unreadable one is.
func (s *Source) configKVs(name string) ([]ggufx.KV, error) {
	b, err := s.readSmall(name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, httprange.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := safetensors.ParseConfig(b, name)
	if err != nil || c.ModelType == "" {
		return nil, err
	}
	s.info.Config = name
	a := c.ModelType
	return []ggufx.KV{
		ggufx.KVString("general.architecture", a),
		ggufx.KVUint32(a+".block_count", c.NumHiddenLayers),
		ggufx.KVUint32(a+".embedding_length", c.HiddenSize),
		ggufx.KVUint32(a+".feed_forward_length", c.IntermediateSize),
		ggufx.KVUint32(a+".attention.head_count", c.NumAttentionHeads),
		ggufx.KVUint32(a+".attention.head_count_kv", c.NumKeyValueHeads),
	}, nil
}

func path2base(name string) string {
	if i := strings.LastIndexAny(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}
