package ggufx

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// Magic is the 4 bytes every GGUF file starts with.
const Magic = "GGUF"

// DefaultAlignment is the data alignment when general.alignment is absent.
const DefaultAlignment = 32

// KeyAlignment is the metadata key that sets the data alignment (uint32).
const KeyAlignment = "general.alignment"

// MaxNameLength is the longest tensor name ggml keeps (GGML_MAX_NAME - 1).
const MaxNameLength = 63

// MaxDims is GGML_MAX_DIMS.
const MaxDims = 4

// Smallest possible encodings, used to bound counts before reading:
// a KV is key length, 1 key byte, type, 1 value byte; a tensor info is name
// length, n_dims, type and offset.
const (
	minKVSize     = 8 + 1 + 4 + 1
	minTensorSize = 8 + 4 + 4 + 8
)

// TensorInfo describes one tensor. Offset is relative to the start of the
// data section; Size is TensorBytes(Type, Dims).
type TensorInfo struct {
	Name   string
	Dims   []uint64 // ne0 (row length) first; len is the stored n_dims
	Type   GGMLType
	Offset uint64
	Size   uint64
}

// Elements returns the tensor's element count.
func (t TensorInfo) Elements() uint64 {
	n, _ := Elements(t.Dims)
	return n
}

// File is a parsed GGUF header plus access to the tensor data.
type File struct {
	Path       string
	Version    uint32
	KVs        []KV
	Tensors    []TensorInfo
	Alignment  uint64
	DataOffset uint64 // absolute offset of the data section (the header size rounded up to Alignment; past FileSize only in a tensor-less file without header padding)
	FileSize   int64

	r         io.ReaderAt
	closer    io.Closer
	headerEnd uint64 // end of the tensor infos, before the header padding
	kvIndex   map[string]int
	tIndex    map[string]int
}

// FormatError is returned for files that are not valid GGUF (and for I/O
// errors while parsing, which it wraps). Its message starts with the file
// name.
type FormatError struct {
	File string
	Msg  string
	Err  error // underlying I/O error, if any
}

func (e *FormatError) Error() string { return e.File + ": " + e.Msg }
func (e *FormatError) Unwrap() error { return e.Err }

// Open parses the header of the GGUF file at path and keeps the file open
// (read-only) for tensor reads; Close releases it.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := Parse(fh, st.Size(), path)
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close closes the file opened by Open; for a File from Parse it does
// nothing.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	c := f.closer
	f.closer = nil
	return c.Close()
}

// streamSource reads the header in one forward pass through a buffer.
type streamSource struct {
	br   *bufio.Reader
	pos  uint64
	size uint64
	tmp  [8]byte
}

func (s *streamSource) left() uint64 { return s.size - s.pos }

// appendN reads in chunks so that a size argument larger than the real
// data never causes a large allocation.
func (s *streamSource) appendN(dst []byte, n uint64) ([]byte, error) {
	if n > s.left() {
		return dst, fmt.Errorf("truncated at offset %d: need %d bytes, %d left", s.pos, n, s.left())
	}
	for n > 0 {
		chunk := min(n, 1<<20)
		l := len(dst)
		dst = slices.Grow(dst, int(chunk))[:l+int(chunk)]
		if _, err := io.ReadFull(s.br, dst[l:]); err != nil {
			return dst[:l], &ioError{fmt.Errorf("read error at offset %d: %w", s.pos, err)}
		}
		s.pos += chunk
		n -= chunk
	}
	return dst, nil
}

type ioError struct{ err error }

func (e *ioError) Error() string { return e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

func (s *streamSource) u32(what string) (uint32, error) {
	if err := need(s, 4, what); err != nil {
		return 0, err
	}
	b, err := s.appendN(s.tmp[:0], 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (s *streamSource) u64(what string) (uint64, error) {
	if err := need(s, 8, what); err != nil {
		return 0, err
	}
	b, err := s.appendN(s.tmp[:0], 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a GGUF string (u64 length, bytes).
func (s *streamSource) str(what string) (string, error) {
	n, err := s.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > MaxStringLength {
		return "", fmt.Errorf("%s length %d exceeds gguf's limit of %d", what, n, MaxStringLength)
	}
	if n > s.left() {
		return "", fmt.Errorf("%s length %d exceeds the %d bytes left", what, n, s.left())
	}
	b, err := s.appendN(nil, n)
	return string(b), err
}

// Parse reads a GGUF header from r, a file of size bytes called name (used
// in error messages). It reads the header in one buffered pass and checks
// it; tensor data is not read.
//
// Compared with gguf.cpp at the pinned commit, Parse is
//   - more lenient: it accepts type 36 as the BitNet fork's I2_S and 96 as
//     BITCOS; arrays of arrays (up to MaxArrayDepth, as the GGUF spec and
//     gguf-py allow); and data laid out in any order with gaps, as long as
//     every offset is aligned, in the file and not overlapping another
//     tensor (gguf.cpp requires contiguous data in tensor-info order; see
//     Canonical);
//   - stricter: it rejects dimensions of 0 (gguf.cpp allows empty tensors),
//     tensor names containing a NUL byte (ggml would silently cut them),
//     versions above 3, and tensor data beyond the end of the file
//     (llama.cpp's loader checks that later).
func Parse(r io.ReaderAt, size int64, name string) (*File, error) {
	f, err := parse(r, size, name)
	if err != nil {
		fe := &FormatError{File: name, Msg: err.Error()}
		var ioe *ioError
		if errors.As(err, &ioe) {
			fe.Err = ioe.err
		}
		return nil, fe
	}
	return f, nil
}

func parse(r io.ReaderAt, size int64, name string) (*File, error) {
	if size < 0 {
		return nil, fmt.Errorf("negative file size %d", size)
	}
	src := &streamSource{
		br:   bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<16),
		size: uint64(size),
	}
	f := &File{Path: name, FileSize: size, r: r}
	var err error
	if f.Version, err = readVersion(src, size); err != nil {
		return nil, err
	}
	nTensors, nKV, err := readCounts(src)
	if err != nil {
		return nil, err
	}
	if err := f.readKVs(src, nKV); err != nil {
		return nil, err
	}
	if err := f.readTensorInfos(src, nTensors); err != nil {
		return nil, err
	}
	if err := f.checkPlacement(); err != nil {
		return nil, err
	}
	return f, nil
}

// readVersion reads the magic and the version, which must be 2 or 3, of a
// file of size bytes.
func readVersion(src *streamSource, size int64) (uint32, error) {
	if size < 4 {
		return 0, fmt.Errorf("truncated: file is %d bytes, too short for the GGUF magic", size)
	}
	magic, err := src.appendN(nil, 4)
	if err != nil {
		return 0, err
	}
	if string(magic) != Magic {
		return 0, fmt.Errorf("not a GGUF file: magic %q, want %q", magic, Magic)
	}
	v, err := src.u32("version")
	if err != nil {
		return 0, err
	}
	switch {
	case v == 2 || v == 3:
	case v == 0:
		return 0, fmt.Errorf("invalid GGUF version 0")
	case v&0xFFFF == 0:
		return 0, fmt.Errorf("GGUF version field is %#08x, which is version %d byte-swapped: "+
			"this is a big-endian GGUF file; only little-endian files are supported", v, swap32(v))
	case v == 1:
		return 0, fmt.Errorf("GGUF version 1 is not supported (only versions 2 and 3)")
	default:
		return 0, fmt.Errorf("GGUF version %d is not supported (only versions 2 and 3)", v)
	}
	return v, nil
}

// readCounts reads the tensor and KV counts and checks that so many could
// fit in the bytes left.
func readCounts(src *streamSource) (nTensors, nKV uint64, err error) {
	if nTensors, err = src.u64("tensor count"); err != nil {
		return 0, 0, err
	}
	if nKV, err = src.u64("kv count"); err != nil {
		return 0, 0, err
	}
	if nTensors > math.MaxInt64 {
		return 0, 0, fmt.Errorf("tensor count %d is negative as int64", int64(nTensors))
	}
	if nKV > math.MaxInt64 {
		return 0, 0, fmt.Errorf("kv count %d is negative as int64", int64(nKV))
	}
	if nKV > src.left()/minKVSize {
		return 0, 0, fmt.Errorf("kv count %d cannot fit in the %d bytes left (each needs at least %d)", nKV, src.left(), minKVSize)
	}
	if nTensors > src.left()/minTensorSize {
		return 0, 0, fmt.Errorf("tensor count %d cannot fit in the %d bytes left (each needs at least %d)", nTensors, src.left(), minTensorSize)
	}
	return nTensors, nKV, nil
}

// readKVs reads the n key-value pairs into f.KVs and f.kvIndex, then
// f.Alignment from them.
func (f *File) readKVs(src *streamSource, n uint64) error {
	f.KVs = make([]KV, 0, min(n, 1024))
	f.kvIndex = make(map[string]int, min(n, 1024))
	for i := uint64(0); i < n; i++ {
		key, err := src.str("key")
		if err != nil {
			return fmt.Errorf("kv %d: %w", i, err)
		}
		if key == "" {
			return fmt.Errorf("kv %d: empty key", i)
		}
		if j, dup := f.kvIndex[key]; dup {
			return fmt.Errorf("kv %d %q: duplicate key (also kv %d)", i, key, j)
		}
		t, err := src.u32("value type")
		if err != nil {
			return fmt.Errorf("kv %d %q: %w", i, key, err)
		}
		vt := ValueType(t)
		if !vt.Valid() {
			return fmt.Errorf("kv %d %q: invalid value type %d", i, key, t)
		}
		raw, err := scanValue(src, vt, nil, 0)
		if err != nil {
			return fmt.Errorf("kv %d %q: %w", i, key, err)
		}
		f.kvIndex[key] = len(f.KVs)
		f.KVs = append(f.KVs, KV{Key: key, Type: vt, Raw: raw})
	}
	var err error
	f.Alignment, err = alignmentOf(f.KVs, f.kvIndex)
	return err
}

// readTensorInfos reads the n tensor infos into f.Tensors and f.tIndex, and
// sets f.headerEnd and f.DataOffset where they end.
func (f *File) readTensorInfos(src *streamSource, n uint64) error {
	f.Tensors = make([]TensorInfo, 0, min(n, 4096))
	f.tIndex = make(map[string]int, min(n, 4096))
	for i := uint64(0); i < n; i++ {
		tname, err := src.str("tensor name")
		if err != nil {
			return fmt.Errorf("tensor %d: %w", i, err)
		}
		ti, err := readTensorInfo(src, tname, f.Alignment)
		if err != nil {
			return fmt.Errorf("tensor %d %q: %w", i, tname, err)
		}
		if j, dup := f.tIndex[tname]; dup {
			return fmt.Errorf("tensor %d %q: duplicate tensor name (also tensor %d)", i, tname, j)
		}
		f.tIndex[tname] = len(f.Tensors)
		f.Tensors = append(f.Tensors, ti)
	}
	f.headerEnd = src.pos
	f.DataOffset = alignUp(src.pos, f.Alignment)
	return nil
}

// checkPlacement checks that every tensor's data lies inside the file and
// overlaps no other tensor's.
func (f *File) checkPlacement() error {
	size := f.FileSize
	if len(f.Tensors) > 0 && f.DataOffset > uint64(size) {
		return fmt.Errorf("truncated: the data section would start at offset %d, beyond the end of the file (size %d)", f.DataOffset, size)
	}
	for i, t := range f.Tensors {
		room := uint64(size) - f.DataOffset // DataOffset <= size here
		if t.Offset > room || t.Size > room-t.Offset {
			return fmt.Errorf("tensor %d %q: data (offset %d, %d bytes) extends beyond the end of the file (data section at %d, file size %d)",
				i, t.Name, t.Offset, t.Size, f.DataOffset, size)
		}
	}
	order := make([]int, len(f.Tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		oa, ob := f.Tensors[a].Offset, f.Tensors[b].Offset
		switch {
		case oa < ob:
			return -1
		case oa > ob:
			return 1
		}
		return 0
	})
	for k := 1; k < len(order); k++ {
		a, b := f.Tensors[order[k-1]], f.Tensors[order[k]]
		if a.Offset+a.Size > b.Offset {
			return fmt.Errorf("tensor %d %q (data %d..%d) overlaps tensor %d %q (data %d..%d)",
				order[k], b.Name, b.Offset, b.Offset+b.Size, order[k-1], a.Name, a.Offset, a.Offset+a.Size)
		}
	}
	return nil
}

func swap32(v uint32) uint32 {
	return v>>24 | (v>>8)&0xff00 | (v<<8)&0xff0000 | v<<24
}

func alignUp(n, a uint64) uint64 {
	if r := n % a; r != 0 {
		return n + (a - r)
	}
	return n
}

// alignmentOf returns general.alignment (which must be a uint32 and a
// non-zero power of two), or DefaultAlignment if the key is absent.
func alignmentOf(kvs []KV, index map[string]int) (uint64, error) {
	i, ok := index[KeyAlignment]
	if !ok {
		return DefaultAlignment, nil
	}
	kv := kvs[i]
	if kv.Type != ValueUint32 {
		return 0, fmt.Errorf("kv %d %q: must be of type uint32, is %s", i, KeyAlignment, kv.Type)
	}
	a := uint64(binary.LittleEndian.Uint32(kv.Raw))
	if a == 0 || a&(a-1) != 0 {
		return 0, fmt.Errorf("kv %d %q: alignment %d is not a non-zero power of two", i, KeyAlignment, a)
	}
	return a, nil
}

// checkTensorName applies ggml's limits to a tensor name.
func checkTensorName(name string) error {
	if len(name) > MaxNameLength {
		return fmt.Errorf("tensor name is %d bytes long, ggml allows at most %d", len(name), MaxNameLength)
	}
	if strings.IndexByte(name, 0) >= 0 {
		return fmt.Errorf("tensor name contains a NUL byte")
	}
	return nil
}

func readTensorInfo(src *streamSource, name string, align uint64) (TensorInfo, error) {
	ti := TensorInfo{Name: name}
	if err := checkTensorName(name); err != nil {
		return ti, err
	}
	nd, err := src.u32("n_dims")
	if err != nil {
		return ti, err
	}
	if nd > MaxDims {
		return ti, fmt.Errorf("n_dims %d exceeds ggml's maximum of %d", nd, MaxDims)
	}
	ti.Dims = make([]uint64, nd)
	for j := range ti.Dims {
		if ti.Dims[j], err = src.u64("dimension"); err != nil {
			return ti, err
		}
	}
	t, err := src.u32("type")
	if err != nil {
		return ti, err
	}
	ti.Type = GGMLType(t)
	if !ti.Type.Known() {
		return ti, fmt.Errorf("unknown ggml type id %d", t)
	}
	if ti.Size, err = TensorBytes(ti.Type, ti.Dims); err != nil {
		return ti, fmt.Errorf("shape %v type %s: %w", ti.Dims, ti.Type, err)
	}
	if ti.Offset, err = src.u64("offset"); err != nil {
		return ti, err
	}
	if ti.Offset%align != 0 {
		return ti, fmt.Errorf("offset %d is not aligned to %d", ti.Offset, align)
	}
	return ti, nil
}

// KV returns the pair with the given key.
func (f *File) KV(key string) (KV, bool) {
	if i, ok := f.kvIndex[key]; ok && i < len(f.KVs) && f.KVs[i].Key == key {
		return f.KVs[i], true
	}
	for _, kv := range f.KVs { // KVs was modified after parsing
		if kv.Key == key {
			return kv, true
		}
	}
	return KV{}, false
}

// Tensor returns the index of the named tensor.
func (f *File) Tensor(name string) (int, bool) {
	if i, ok := f.tIndex[name]; ok && i < len(f.Tensors) && f.Tensors[i].Name == name {
		return i, true
	}
	for i, t := range f.Tensors {
		if t.Name == name {
			return i, true
		}
	}
	return -1, false
}

// ReaderAt reads the file's bytes (header and data alike).
func (f *File) ReaderAt() io.ReaderAt { return f.r }

// Section returns a reader of tensor i's bytes (i must be a valid index).
func (f *File) Section(i int) *io.SectionReader {
	t := f.Tensors[i]
	return io.NewSectionReader(f.r, int64(f.DataOffset+t.Offset), int64(t.Size))
}

// ReadTensor reads tensor i's bytes into buf (reused if its capacity is
// large enough) and returns them.
func (f *File) ReadTensor(i int, buf []byte) ([]byte, error) {
	if i < 0 || i >= len(f.Tensors) {
		return nil, fmt.Errorf("%s: tensor index %d out of range [0, %d)", f.Path, i, len(f.Tensors))
	}
	t := f.Tensors[i]
	if t.Size > math.MaxInt {
		return nil, fmt.Errorf("%s: tensor %d %q: %d bytes do not fit in memory", f.Path, i, t.Name, t.Size)
	}
	n := int(t.Size)
	if cap(buf) >= n {
		buf = buf[:n]
	} else {
		buf = make([]byte, n)
	}
	got, err := f.r.ReadAt(buf, int64(f.DataOffset+t.Offset))
	if got == n {
		return buf, nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("%s: tensor %d %q: reading %d bytes at offset %d: %w", f.Path, i, t.Name, n, f.DataOffset+t.Offset, err)
}
