// Package ggufsplit reads shard sets as llama-gguf-split writes them
// (tools/gguf-split at the pin): their names and split.* keys, the set a
// first shard stands for (Set), and the set read as the one file it stands
// for, without writing that file (Join). Virtual serves any GGUF header as a
// file whose tensors' data lie elsewhere (Join's shards, or a safetensors
// checkpoint's files). Writing shards is repack's (repack/shards.go).
package ggufsplit

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Shards as llama-gguf-split writes them (tools/gguf-split at the pin):
// PREFIX-00001-of-0000N.gguf; the first shard holds every KV of the model,
// each shard holds split.no (u16), split.tensors.count (i32) and split.count
// (u16) last, in that order (gguf_set_val removes a key and appends it), and
// tensors in model order, each padded to 32 bytes.
const (
	KeyNo      = "split.no"
	KeyCount   = "split.count"
	KeyTensors = "split.tensors.count"
)

// Path is llama_split_path: PREFIX-%05d-of-%05d.gguf, numbered from 1.
func Path(prefix string, no, count int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, no+1, count)
}

var shardRe = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// IsKey reports whether key is one of the split.* keys.
func IsKey(key string) bool {
	return key == KeyNo || key == KeyCount || key == KeyTensors
}

// Set returns the paths of all shards of the set f is the first shard of,
// or nil when f is not a shard (no split.count > 1); a later shard is an
// error that names the first.
func Set(f *ggufx.File) ([]string, error) {
	kv, ok := f.KV(KeyCount)
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
		return nil, fmt.Errorf("%s: give the first shard (%s)", f.Path, Path(m[1], 0, int(count)))
	}
	var paths []string
	for s := 0; s < int(count); s++ {
		paths = append(paths, Path(m[1], s, int(count)))
	}
	return paths, nil
}

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

// Join opens the shard set paths, each with open (ggufx.Open, or a reader
// of URLs), as one file: the first shard's KVs without the split.* keys,
// then every shard's tensors in order, laid out as a writer lays them out.
// For shards repack wrote, its bytes are the unsplit repack's. Errors name
// the file as name. The shards stay open until the returned close.
func Join(paths []string, name string, open func(string) (*ggufx.File, error)) (*ggufx.File, func(), error) {
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
		kv, ok := sh.KV(KeyNo)
		if no, _ := kv.AsUint64(); !ok || no != uint64(s) {
			closeAll()
			return nil, nil, fmt.Errorf("%s: split.no is %s, want %d", p, kv.ValueString(), s)
		}
		if s == 0 {
			h = ggufx.Header{Version: sh.Version, Alignment: sh.Alignment}
			for _, kv := range sh.KVs {
				if !IsKey(kv.Key) {
					h.KVs = append(h.KVs, kv)
				}
			}
		}
		for i, t := range sh.Tensors {
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type})
			srcs = append(srcs, source{sh, i})
		}
	}
	parts := make([]Source, len(srcs))
	for k, s := range srcs {
		parts[k] = Source{s.f.ReaderAt(), s.f.DataOffset + s.f.Tensors[s.i].Offset}
	}
	f, err := Virtual(h, parts, name)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return f, closeAll, nil
}

// Source is where a tensor's data lies: at Off in R.
type Source struct {
	R   io.ReaderAt
	Off uint64
}

// Virtual is the GGUF file header h describes, laid out as a writer
// lays it out, served without being written: the header encoded in memory,
// tensor k's data read from srcs[k], the padding as zeros. Errors name the
// file as name.
func Virtual(h ggufx.Header, srcs []Source, name string) (*ggufx.File, error) {
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
		add(t.Size, srcs[k].R, srcs[k].Off)
		add((t.Size+h.Alignment-1)/h.Alignment*h.Alignment-t.Size, nil, 0)
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
