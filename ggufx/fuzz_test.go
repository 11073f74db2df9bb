package ggufx

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// virtualFile is hdr followed by zeros up to size, without allocating them.
type virtualFile struct {
	hdr  []byte
	size int64
}

func (v virtualFile) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off+int64(n) < v.size {
		if pos := off + int64(n); pos < int64(len(v.hdr)) {
			n += copy(p[n:], v.hdr[pos:])
		} else {
			k := min(int64(len(p)-n), v.size-pos)
			clear(p[n : n+int(k)])
			n += int(k)
		}
	}
	if n < len(p) {
		return n, errEOF
	}
	return n, nil
}

var errEOF = bytes.ErrTooLarge // any error will do; Parse never reads past size

func FuzzParse(f *testing.F) {
	f.Add(writeFile(f, smallHeader(), nil))
	f.Add(writeFile(f, everyValueHeader(f), nil))
	f.Add(writeFile(f, Header{KVs: []KV{KVString("general.name", " ")}}, nil))
	f.Add(writeFile(f, Header{Version: 2, Tensors: []TensorInfo{{Name: "t", Dims: []uint64{2}, Type: TypeF32}}}, nil))
	f.Add(rawFile{version: 3, tensors: []rawTensor{
		{name: "a", dims: []uint64{8}, typ: uint32(TypeF32), offset: 96},
		{name: "b", dims: []uint64{128, 2}, typ: uint32(TypeI2_S), offset: 0},
	}, dataBytes: 128}.bytes())

	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Parse(bytes.NewReader(data), int64(len(data)), "fuzz.gguf")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.gguf: ") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		canonErr := g.Canonical()

		// Every header Parse accepts can be written, and reads back the same.
		l, err := plan(HeaderFromFile(g))
		if err != nil {
			t.Fatalf("writer rejects a parsed header: %v", err)
		}
		hdr := l.encode()
		size := int64(l.dataOffset + l.dataSize)
		g2, err := Parse(virtualFile{hdr, size}, size, "rewritten.gguf")
		if err != nil {
			t.Fatalf("rewritten header does not parse: %v", err)
		}
		if g2.Version != g.Version || g2.Alignment != g.Alignment || g2.DataOffset != l.dataOffset || len(g2.KVs) != len(g.KVs) || len(g2.Tensors) != len(g.Tensors) {
			t.Fatalf("rewritten header differs: version %d/%d alignment %d/%d kvs %d/%d tensors %d/%d",
				g2.Version, g.Version, g2.Alignment, g.Alignment, len(g2.KVs), len(g.KVs), len(g2.Tensors), len(g.Tensors))
		}
		for i, kv := range g.KVs {
			k2 := g2.KVs[i]
			if k2.Key != kv.Key || k2.Type != kv.Type || !bytes.Equal(k2.Raw, kv.Raw) {
				t.Fatalf("kv %d differs", i)
			}
		}
		for i, ti := range g.Tensors {
			t2 := g2.Tensors[i]
			if t2.Name != ti.Name || !slices.Equal(t2.Dims, ti.Dims) || t2.Type != ti.Type || t2.Size != ti.Size || t2.Offset != l.tensors[i].Offset {
				t.Fatalf("tensor %d differs: %+v vs %+v", i, t2, ti)
			}
		}
		if canonErr == nil {
			if int64(len(data)) != size || !bytes.Equal(data[:len(hdr)], hdr) {
				t.Fatalf("Canonical() == nil but the writer would produce a different file")
			}
		}
	})
}
