package repack

import (
	"fmt"
	"strconv"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
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

// openJoined opens path and validates what it says of BITCOS
// (bitcos.Validate). When path is the first shard of a set, the set is read
// as the one file it stands for (ggufsplit.Join), without writing that file; the
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
	paths, err := ggufsplit.Set(f)
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
	joined, closeShards, err := ggufsplit.Join(paths, path, ggufx.Open)
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
	paths, err := ggufsplit.Set(f)
	if err != nil || paths != nil {
		return paths, err
	}
	return []string{path}, nil
}
