package modelgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
)

// stDType is the safetensors dtype of a float GGUF type.
var stDType = map[ggufx.GGMLType]string{ggufx.TypeF32: "F32", ggufx.TypeF16: "F16", ggufx.TypeBF16: "BF16"}

// WriteSafetensors writes the float master GGUF at src as a Hugging Face
// checkpoint would hold it: tensors under their checkpoint names
// (safetensors.HFName), shapes outermost first, the same bytes. With
// shards > 1, out "DIR/NAME.safetensors" becomes DIR/NAME-0000i-of-0000N
// .safetensors (split by size, tensor order kept) and DIR/NAME.safetensors
// .index.json. It returns the files written, the index (or single file)
// first. The files are written unnamed and named together once all are
// complete (atomicfile.CommitAll): a failure leaves none of them. An
// existing file is replaced only when replace (atomicfile.CreateNew).
func WriteSafetensors(src, out string, shards int, replace bool) ([]string, error) {
	f, err := ggufx.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !strings.HasSuffix(out, ".safetensors") {
		return nil, fmt.Errorf("%s: the output must end in .safetensors", out)
	}
	ts := make([]safetensors.Data, len(f.Tensors))
	var total uint64
	for i, t := range f.Tensors {
		dt, ok := stDType[t.Type]
		if !ok {
			return nil, fmt.Errorf("%s: tensor %q is %v: only F32, F16 and BF16 masters convert", src, t.Name, t.Type)
		}
		shape := make([]uint64, len(t.Dims))
		for j, d := range t.Dims {
			shape[len(shape)-1-j] = d
		}
		ts[i] = safetensors.Data{Name: safetensors.HFName(t.Name), DType: dt, Shape: shape}
		total += t.Size
	}
	set := outputSet{replace: replace}
	defer set.abort()
	config := filepath.Join(filepath.Dir(out), safetensors.ConfigName)
	if err := writeConfig(f, &set, config); err != nil {
		return nil, err
	}
	shards = max(1, min(shards, len(ts)))
	if shards == 1 {
		if err := writeShard(f, &set, out, ts, 0); err != nil {
			return nil, err
		}
		return []string{out, config}, set.commit()
	}
	prefix := strings.TrimSuffix(out, ".safetensors")
	index := prefix + ".safetensors.index.json"
	files := []string{index}
	// Tensor i goes to shard floor(bytes before it * shards / total):
	// order kept, sizes balanced; empty groups (a huge tensor) are dropped.
	var groups [][2]int
	var before uint64
	last := -1
	for i, t := range f.Tensors {
		g := int(before * uint64(shards) / max(total, 1))
		if g > last {
			groups = append(groups, [2]int{i, i})
			last = g
		}
		groups[len(groups)-1][1] = i + 1
		before += t.Size
	}
	weightMap := map[string]string{}
	for s, g := range groups {
		name := fmt.Sprintf("%s-%05d-of-%05d.safetensors", prefix, s+1, len(groups))
		if err := writeShard(f, &set, name, ts[g[0]:g[1]], g[0]); err != nil {
			return nil, err
		}
		for _, t := range ts[g[0]:g[1]] {
			weightMap[t.Name] = filepath.Base(name)
		}
		files = append(files, name)
	}
	b, err := safetensors.EncodeIndex(weightMap, int64(total))
	if err != nil {
		return nil, err
	}
	if err := set.write(index, b); err != nil {
		return nil, err
	}
	return append(files, config), set.commit()
}

// outputSet is the files of a checkpoint being written: named together
// by commit, all removed by abort (a no-op after commit).
type outputSet struct {
	files   []*atomicfile.File
	replace bool // replace existing files (else atomicfile.CreateNew)
}

func (s *outputSet) create(path string) (*atomicfile.File, error) {
	create := atomicfile.CreateNew
	if s.replace {
		create = atomicfile.Create
	}
	o, err := create(path, 0o644)
	if err == nil {
		s.files = append(s.files, o)
	}
	return o, err
}

// write adds a file with content b.
func (s *outputSet) write(path string, b []byte) error {
	o, err := s.create(path)
	if err != nil {
		return err
	}
	if _, err := o.Write(b); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func (s *outputSet) commit() error { return atomicfile.CommitAll(s.files...) }

func (s *outputSet) abort() {
	for _, o := range s.files {
		o.Abort()
	}
}

// writeConfig writes the transformers config.json of f's hyper-parameters
// (the keys stats reads; model_type is general.architecture).
func writeConfig(f *ggufx.File, set *outputSet, path string) error {
	arch := ""
	if kv, ok := f.KV("general.architecture"); ok {
		arch, _ = kv.AsString()
	}
	c := map[string]any{"model_type": arch}
	for key, hf := range map[string]string{
		"block_count": "num_hidden_layers", "embedding_length": "hidden_size", "feed_forward_length": "intermediate_size",
		"attention.head_count": "num_attention_heads", "attention.head_count_kv": "num_key_value_heads",
	} {
		if kv, ok := f.KV(arch + "." + key); ok {
			c[hf], _ = kv.AsUint64()
		}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return set.write(path, b)
}

// writeShard streams tensors first.. of f (described by ts) into path, a
// file of set.
func writeShard(f *ggufx.File, set *outputSet, path string, ts []safetensors.Data, first int) error {
	h, err := safetensors.EncodeHeader(ts, map[string]string{"format": "pt"})
	if err != nil {
		return err
	}
	out, err := set.create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(out, 4<<20)
	w.Write(h)
	for j := range ts {
		if _, err = io.Copy(w, f.Section(first+j)); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
