package repack

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Shards as llama-gguf-split writes them (tools/gguf-split at the pin):
// PREFIX-00001-of-0000N.gguf; the first shard holds every KV of the model,
// each shard holds split.no (u16), split.tensors.count (i32) and split.count
// (u16) last, in that order (gguf_set_val removes a key and appends it), and
// tensors in model order, each padded to 32 bytes.
const (
	KeySplitNo      = "split.no"
	KeySplitCount   = "split.count"
	KeySplitTensors = "split.tensors.count"
)

// SplitOptions say where to cut: before a tensor that would take a shard's
// tensor data past MaxBytes (counting padded tensor sizes only, as
// llama-gguf-split does), or every MaxTensors tensors. One of the two.
type SplitOptions struct {
	MaxBytes   int64
	MaxTensors int
}

// ParseSplitSize reads llama-gguf-split's --split-max-size: a number with M
// (10^6) or G (10^9).
func ParseSplitSize(s string) (int64, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("split size %q: want a number followed by M or G", s)
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("split size %q: want a positive number followed by M or G", s)
	}
	switch s[len(s)-1] {
	case 'M', 'm':
		return n * 1000 * 1000, nil
	case 'G', 'g':
		return n * 1000 * 1000 * 1000, nil
	}
	return 0, fmt.Errorf("split size %q: want a number followed by M or G", s)
}

// ShardPath is llama_split_path: PREFIX-%05d-of-%05d.gguf, numbered from 1.
func ShardPath(prefix string, no, count int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, no+1, count)
}

var shardRe = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// isSplitKey reports whether key is one of the split.* keys.
func isSplitKey(key string) bool {
	return key == KeySplitNo || key == KeySplitCount || key == KeySplitTensors
}

// shardSet returns the paths of all shards of the set path belongs to, or
// nil when path is not a shard (no split.count > 1).
func shardSet(f *ggufx.File) ([]string, error) {
	kv, ok := f.KV(KeySplitCount)
	if !ok {
		return nil, nil
	}
	count, ok := kv.AsUint64()
	if !ok || count <= 1 {
		return nil, nil
	}
	m := shardRe.FindStringSubmatch(f.Path)
	if m == nil {
		return nil, fmt.Errorf("%s: a shard (split.count %d) whose name is not PREFIX-NNNNN-of-NNNNN.gguf", f.Path, count)
	}
	if no, _ := strconv.Atoi(m[2]); no != 1 {
		return nil, fmt.Errorf("%s: give the first shard (%s)", f.Path, ShardPath(m[1], 0, int(count)))
	}
	var paths []string
	for s := 0; s < int(count); s++ {
		paths = append(paths, ShardPath(m[1], s, int(count)))
	}
	return paths, nil
}

// openJoined opens path and validates what it says of BITCOS
// (bitcos.Validate). When path is the first shard of a set, the set is read
// as the one file it stands for (join.go), without writing that file; the
// returned cleanup closes the shards.
func openJoined(path string) (*input, func(), error) {
	in, done, err := openJoinedRaw(path)
	if err != nil {
		return nil, nil, err
	}
	if in.meta, err = bitcos.Validate(in.File); err != nil {
		in.Close()
		done()
		return nil, nil, err
	}
	return in, done, nil
}

func openJoinedRaw(path string) (*input, func(), error) {
	f, err := ggufx.Open(path)
	if err != nil {
		return nil, nil, err
	}
	paths, err := shardSet(f)
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	if paths == nil {
		in, err := openInput(path)
		return in, func() {}, err
	}
	// Errors name the first shard, the file the user gave. Data is read
	// from the shards (no mapping, no in-kernel copies of a whole file).
	joined, closeShards, err := joinShards(paths, path)
	if err != nil {
		return nil, nil, err
	}
	return &input{File: joined}, closeShards, nil
}

// ShardFiles lists the files of a model: every shard when path is the first
// shard of a set, else path alone.
func ShardFiles(path string) ([]string, error) {
	f, err := ggufx.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	paths, err := shardSet(f)
	if err != nil || paths != nil {
		return paths, err
	}
	return []string{path}, nil
}
