package repack

import (
	"fmt"
	"os"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// input is an open GGUF file whose tensor data is read through a read-only
// memory map where the platform has one (no copy out of the page cache: the
// repack reads its input twice), else with reads into reusable buffers.
//
// Like llama.cpp's own mmap, a file truncated by another process while it is
// mapped faults on access; files are never modified by this project.
type input struct {
	*ggufx.File
	data []byte   // the whole file, or nil
	fd   *os.File // for in-kernel copies

	heads map[string]format.HeadType // head tensors to quantize: name -> type (head.go)
	meta  *bitcos.Meta               // what a BITCOS file says of itself (bitcos.Validate); nil for a stock file
}

func openInput(path string) (*input, error) {
	f, err := ggufx.Open(path)
	if err != nil {
		return nil, err
	}
	in := &input{File: f}
	if f.FileSize > 0 {
		in.data, _ = mapFile(path, f.FileSize) // fall back to reads on failure
	}
	in.fd, _ = os.Open(path) // nil: no in-kernel copies
	return in, nil
}

func (in *input) Close() error {
	if in.data != nil {
		unmapFile(in.data)
		in.data = nil
	}
	if in.fd != nil {
		in.fd.Close()
	}
	return in.File.Close()
}

// release tells the kernel that this process is done with tensor i's pages
// for now: they leave its resident set (they stay in the page cache, and a
// later access maps them again), so resident memory stays about one tensor
// per worker even though the whole file is mapped.
func (in *input) release(i int) { in.releaseRange(i, 0, in.Tensors[i].Size) }

// releaseRange releases bytes [from, to) of tensor i (see release).
func (in *input) releaseRange(i int, from, to uint64) {
	if in.data == nil {
		return
	}
	start := in.DataOffset + in.Tensors[i].Offset
	releasePages(in.data, start+from, start+to)
}

// tensor returns tensor i's bytes: a slice of the mapping (do not modify it)
// or buf filled by a read.
func (in *input) tensor(i int, buf []byte) ([]byte, error) {
	if in.data == nil {
		return in.ReadTensor(i, buf)
	}
	t := in.Tensors[i]
	start := in.DataOffset + t.Offset
	if start+t.Size > uint64(len(in.data)) {
		return nil, fmt.Errorf("%s: tensor %q lies beyond the end of the file", in.Path, t.Name)
	}
	return in.data[start : start+t.Size : start+t.Size], nil
}
