// Package safetensors reads the header of a safetensors file (the format
// Hugging Face checkpoints are published in) through an io.ReaderAt, so a
// local file and a URL (internal/httprange) parse alike, and writes small
// files for tests.
//
// Format (huggingface/safetensors, docs and safetensors/src/tensor.rs): an
// 8-byte little-endian header length N, N bytes of JSON (an object: tensor
// name -> {"dtype", "shape", "data_offsets": [begin, end]}, plus an optional
// "__metadata__" object of strings), then the data. Offsets are relative to
// the data start; like the reference implementation this parser requires the
// tensors to tile the data exactly (sorted by offset, no gap, no overlap,
// ending at the end of the file) and each tensor's byte count to equal its
// element count times its dtype's size.
//
// A header is hostile input: its length is checked against the file size and
// MaxHeaderBytes before anything is allocated, each shape's JSON is bounded
// before it is decoded, products are checked for overflow, and every error
// names the file and, where there is one, the tensor.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"sort"
)

// MaxHeaderBytes is the reference implementation's header size limit.
const MaxHeaderBytes = 100_000_000

// maxShapeJSON bounds a shape's JSON text: 16 dims of 20 digits.
const maxShapeJSON = 16 * 22

// dtypeSizes are the element sizes of the reference implementation's
// dtypes.
var dtypeSizes = map[string]int{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// DTypeSize is the size in bytes of one element of dtype, 0 if unknown.
func DTypeSize(dtype string) int { return dtypeSizes[dtype] }

// Tensor is one header entry. Offset is absolute (from the file's start).
type Tensor struct {
	Name   string
	DType  string
	Shape  []uint64 // outermost first (row-major)
	Offset uint64
	Size   uint64
}

// Elements is the product of the shape (1 for a scalar).
func (t Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// File is a parsed header.
type File struct {
	Name       string
	Size       int64
	DataOffset uint64   // 8 + header length
	Tensors    []Tensor // in data order
	Metadata   map[string]string
}

// Parse reads the header of the safetensors file of size bytes that r
// serves; name is used in errors.
func Parse(r io.ReaderAt, size int64, name string) (*File, error) {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%s: safetensors: %s", name, fmt.Sprintf(format, a...))
	}
	if size < 8 {
		return nil, fail("%d bytes, too short for the header length", size)
	}
	var lb [8]byte
	if _, err := r.ReadAt(lb[:], 0); err != nil {
		return nil, fail("reading the header length: %v", err)
	}
	n := binary.LittleEndian.Uint64(lb[:])
	if n > MaxHeaderBytes {
		return nil, fail("header length %d exceeds the %d-byte limit", n, MaxHeaderBytes)
	}
	if n > uint64(size)-8 {
		return nil, fail("header length %d runs past the end of the %d-byte file", n, size)
	}
	hdr := make([]byte, n)
	if m, err := r.ReadAt(hdr, 8); uint64(m) < n {
		return nil, fail("reading the %d-byte header: %v", n, err)
	}
	f := &File{Name: name, Size: size, DataOffset: 8 + n}
	dataLen := uint64(size) - f.DataOffset
	dec := json.NewDecoder(bytes.NewReader(hdr))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fail("the header is not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("header JSON: %v", err)
		}
		key := tok.(string) // object keys are strings
		if seen[key] {
			return nil, fail("tensor %q appears twice in the header", key)
		}
		seen[key] = true
		if key == "__metadata__" {
			if err := dec.Decode(&f.Metadata); err != nil {
				return nil, fail("__metadata__ is not an object of strings: %v", err)
			}
			continue
		}
		var e struct {
			DType   string          `json:"dtype"`
			Shape   json.RawMessage `json:"shape"`
			Offsets json.RawMessage `json:"data_offsets"`
		}
		if err := dec.Decode(&e); err != nil {
			return nil, fail("tensor %q: %v", key, err)
		}
		t, err := entry(key, e.DType, e.Shape, e.Offsets, f.DataOffset, dataLen)
		if err != nil {
			return nil, fail("%v", err)
		}
		f.Tensors = append(f.Tensors, t)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail("header JSON: %v", err)
	}
	if dec.More() {
		return nil, fail("bytes after the header's JSON object")
	}
	// Tile the data: sorted by offset, contiguous, ending at the file's end.
	sort.SliceStable(f.Tensors, func(a, b int) bool { return f.Tensors[a].Offset < f.Tensors[b].Offset })
	at := f.DataOffset
	for _, t := range f.Tensors {
		if t.Offset != at {
			return nil, fail("tensor %q: data begins at %d, want %d (tensors must tile the data without gaps or overlaps)", t.Name, t.Offset-f.DataOffset, at-f.DataOffset)
		}
		at += t.Size
	}
	if at != uint64(size) {
		return nil, fail("tensor data ends at %d, but the data section is %d bytes", at-f.DataOffset, dataLen)
	}
	return f, nil
}

// entry checks one tensor's header entry.
func entry(name, dtype string, shapeJSON, offJSON json.RawMessage, dataOff, dataLen uint64) (Tensor, error) {
	t := Tensor{Name: name, DType: dtype}
	es := DTypeSize(dtype)
	if es == 0 {
		return t, fmt.Errorf("tensor %q: unknown dtype %q", name, dtype)
	}
	if len(shapeJSON) == 0 || len(offJSON) == 0 {
		return t, fmt.Errorf("tensor %q: shape and data_offsets are required", name)
	}
	if len(shapeJSON) > maxShapeJSON {
		return t, fmt.Errorf("tensor %q: shape is %d bytes of JSON, more than %d dims can take", name, len(shapeJSON), maxShapeJSON)
	}
	if err := json.Unmarshal(shapeJSON, &t.Shape); err != nil {
		return t, fmt.Errorf("tensor %q: shape: %v", name, err)
	}
	var off []uint64
	if len(offJSON) > 64 || json.Unmarshal(offJSON, &off) != nil || len(off) != 2 {
		return t, fmt.Errorf("tensor %q: data_offsets must be [begin, end]", name)
	}
	if off[0] > off[1] || off[1] > dataLen {
		return t, fmt.Errorf("tensor %q: data_offsets [%d, %d] outside the %d-byte data section", name, off[0], off[1], dataLen)
	}
	n := uint64(es)
	for _, d := range t.Shape {
		hi, lo := bits.Mul64(n, d)
		if hi != 0 {
			return t, fmt.Errorf("tensor %q: shape %v overflows", name, t.Shape)
		}
		n = lo
	}
	if n != off[1]-off[0] {
		return t, fmt.Errorf("tensor %q: %v %s is %d bytes, data_offsets give %d", name, t.Shape, dtype, n, off[1]-off[0])
	}
	t.Offset, t.Size = dataOff+off[0], n
	return t, nil
}
