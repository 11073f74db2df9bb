package repack

import (
	"fmt"
	"io"
	"sort"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// A shard set is read as the one file it stands for, without writing that
// file: joinedReader serves the joined file's bytes from the shards (its
// header encoded in memory, each tensor's data read from its shard, the
// padding as zeros), and ggufx parses it like any file.

// segment is a run of the joined file: bytes of src from off, or zeros
// when src is nil.
type segment struct {
	start, end uint64 // in the joined file
	src        io.ReaderAt
	off        uint64 // in src
}

type joinedReader struct {
	segs []segment // sorted, contiguous, covering [0, size)
	size uint64
}

func (j *joinedReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("joined shards: negative offset %d", off)
	}
	n := 0
	pos := uint64(off)
	i := sort.Search(len(j.segs), func(i int) bool { return j.segs[i].end > pos })
	for n < len(p) && i < len(j.segs) {
		s := j.segs[i]
		k := min(uint64(len(p)-n), s.end-pos)
		dst := p[n : n+int(k)]
		if s.src == nil {
			clear(dst)
		} else if m, err := s.src.ReadAt(dst, int64(s.off+pos-s.start)); m < len(dst) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n + m, err
		}
		n += int(k)
		pos += k
		i++
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// joinShards opens the shard set paths as one file: the first shard's KVs
// without the split.* keys, then every shard's tensors in order, laid out as
// a writer lays them out. For shards repack wrote, its bytes are the
// unsplit repack's. The shards stay open until the returned close.
func joinShards(paths []string, name string) (*ggufx.File, func(), error) {
	return joinShardsWith(paths, name, ggufx.Open)
}

// joinShardsWith is joinShards with the shards opened by open (stats_source.go
// opens URLs).
func joinShardsWith(paths []string, name string, open func(string) (*ggufx.File, error)) (*ggufx.File, func(), error) {
	var shards []*ggufx.File
	closeAll := func() {
		for _, s := range shards {
			s.Close()
		}
	}
	var h ggufx.Header
	type source struct {
		f *ggufx.File
		i int
	}
	var srcs []source
	for s, p := range paths {
		sh, err := open(p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		shards = append(shards, sh)
		kv, ok := sh.KV(KeySplitNo)
		if no, _ := kv.AsUint64(); !ok || no != uint64(s) {
			closeAll()
			return nil, nil, fmt.Errorf("%s: split.no is %s, want %d", p, kv.ValueString(), s)
		}
		if s == 0 {
			h = ggufx.Header{Version: sh.Version, Alignment: sh.Alignment}
			for _, kv := range sh.KVs {
				if !isSplitKey(kv.Key) {
					h.KVs = append(h.KVs, kv)
				}
			}
		}
		for i, t := range sh.Tensors {
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type})
			srcs = append(srcs, source{sh, i})
		}
	}
	parts := make([]tensorSource, len(srcs))
	for k, s := range srcs {
		parts[k] = tensorSource{s.f.ReaderAt(), s.f.DataOffset + s.f.Tensors[s.i].Offset}
	}
	f, err := virtualGGUF(h, parts, name)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return f, closeAll, nil
}

// tensorSource is where a tensor's data lies: at off in r.
type tensorSource struct {
	r   io.ReaderAt
	off uint64
}

// virtualGGUF is the GGUF file header h describes, laid out as a writer
// lays it out, served without being written: the header encoded in memory,
// tensor k's data read from srcs[k], the padding as zeros. Errors name the
// file as name.
func virtualGGUF(h ggufx.Header, srcs []tensorSource, name string) (*ggufx.File, error) {
	hdr, dataOffset, ts, err := ggufx.EncodeHeaderUnpadded(h)
	if err != nil {
		return nil, fmt.Errorf("%s: its tensors do not make a GGUF file: %w", name, err)
	}
	j := &joinedReader{}
	add := func(n uint64, src io.ReaderAt, off uint64) {
		if n > 0 {
			j.segs = append(j.segs, segment{start: j.size, end: j.size + n, src: src, off: off})
			j.size += n
		}
	}
	add(uint64(len(hdr)), readerOf(hdr), 0)
	add(dataOffset-uint64(len(hdr)), nil, 0)
	for k, t := range ts {
		add(t.Size, srcs[k].r, srcs[k].off)
		add(pad(t.Size, h.Alignment)-t.Size, nil, 0)
	}
	return ggufx.Parse(j, int64(j.size), name)
}

type bytesReaderAt []byte

func readerOf(b []byte) io.ReaderAt { return bytesReaderAt(b) }

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
