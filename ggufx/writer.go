package ggufx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// Header is everything a Writer needs before the tensor data. Tensor
// Offset and Size are ignored: the writer computes them.
type Header struct {
	Version   uint32 // 2 or 3; 0 means 3
	Alignment uint64 // 0 means general.alignment if present, else 32
	KVs       []KV
	Tensors   []TensorInfo
}

// HeaderFromFile returns f's header, ready to be written again. The KV Raw
// slices are shared with f.
func HeaderFromFile(f *File) Header {
	h := Header{
		Version:   f.Version,
		Alignment: f.Alignment,
		KVs:       slices.Clone(f.KVs),
		Tensors:   make([]TensorInfo, len(f.Tensors)),
	}
	for i, t := range f.Tensors {
		t.Dims = slices.Clone(t.Dims)
		h.Tensors[i] = t
	}
	return h
}

// TensorInfoSize is the number of bytes t's info entry takes in the header:
// name length and bytes, n_dims, dims, type, offset.
func TensorInfoSize(t TensorInfo) uint64 {
	return 8 + uint64(len(t.Name)) + 4 + 8*uint64(len(t.Dims)) + 4 + 8
}

// layout is a validated header with computed offsets.
type layout struct {
	version    uint32
	align      uint64
	kvs        []KV
	tensors    []TensorInfo
	headerLen  uint64 // unpadded
	dataOffset uint64 // headerLen padded to align
	dataSize   uint64 // every tensor padded to align
}

func writerErr(format string, args ...any) error {
	return errors.New("ggufx: " + fmt.Sprintf(format, args...))
}

// plan validates h and computes the layout. It accepts everything Parse
// accepts, so any parsed file can be written again.
func plan(h Header) (*layout, error) {
	l := &layout{version: h.Version, kvs: h.KVs}
	if l.version == 0 {
		l.version = 3
	}
	if l.version != 2 && l.version != 3 {
		return nil, writerErr("GGUF version %d cannot be written (only 2 and 3)", h.Version)
	}
	size := uint64(4 + 4 + 8 + 8)
	index := make(map[string]int, len(h.KVs))
	for i, kv := range h.KVs {
		if err := kv.Validate(); err != nil {
			return nil, writerErr("kv %d %q: %v", i, kv.Key, err)
		}
		if j, dup := index[kv.Key]; dup {
			return nil, writerErr("kv %d %q: duplicate key (also kv %d)", i, kv.Key, j)
		}
		index[kv.Key] = i
		size += 8 + uint64(len(kv.Key)) + 4 + uint64(len(kv.Raw))
	}
	kvAlign, err := alignmentOf(h.KVs, index)
	if err != nil {
		return nil, writerErr("%v", err)
	}
	_, hasKV := index[KeyAlignment]
	switch {
	case h.Alignment == 0:
		l.align = kvAlign
	case h.Alignment != kvAlign && hasKV:
		return nil, writerErr("Alignment %d disagrees with %s = %d", h.Alignment, KeyAlignment, kvAlign)
	case h.Alignment != kvAlign:
		return nil, writerErr("Alignment %d needs a %s uint32 KV (readers assume %d without it)", h.Alignment, KeyAlignment, DefaultAlignment)
	default:
		l.align = kvAlign
	}

	l.tensors = make([]TensorInfo, len(h.Tensors))
	names := make(map[string]int, len(h.Tensors))
	var off uint64
	for i, t := range h.Tensors {
		if err := checkTensorName(t.Name); err != nil {
			return nil, writerErr("tensor %d %q: %v", i, t.Name, err)
		}
		if j, dup := names[t.Name]; dup {
			return nil, writerErr("tensor %d %q: duplicate tensor name (also tensor %d)", i, t.Name, j)
		}
		names[t.Name] = i
		if len(t.Dims) > MaxDims {
			return nil, writerErr("tensor %d %q: n_dims %d exceeds ggml's maximum of %d", i, t.Name, len(t.Dims), MaxDims)
		}
		n, err := TensorBytes(t.Type, t.Dims)
		if err != nil {
			return nil, writerErr("tensor %d %q: shape %v type %s: %v", i, t.Name, t.Dims, t.Type, err)
		}
		padded := alignUp(n, l.align)
		if padded < n || off > math.MaxInt64-padded {
			return nil, writerErr("tensor %d %q: data section exceeds 2^63 bytes", i, t.Name)
		}
		t.Dims = slices.Clone(t.Dims)
		t.Offset, t.Size = off, n
		l.tensors[i] = t
		off += padded
		size += TensorInfoSize(t)
	}
	l.headerLen = size
	l.dataOffset = alignUp(size, l.align)
	l.dataSize = off
	if l.dataSize > math.MaxInt64-l.dataOffset {
		return nil, writerErr("file would exceed 2^63 bytes")
	}
	return l, nil
}

// encode returns the header bytes without the padding (which can be up to
// 2 GiB for a hostile alignment; writers stream it).
func (l *layout) encode() []byte {
	b := make([]byte, 0, l.headerLen)
	b = append(b, Magic...)
	b = binary.LittleEndian.AppendUint32(b, l.version)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(l.tensors)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(l.kvs)))
	for _, kv := range l.kvs {
		b = appendString(b, kv.Key)
		b = binary.LittleEndian.AppendUint32(b, uint32(kv.Type))
		b = append(b, kv.Raw...)
	}
	for _, t := range l.tensors {
		b = appendString(b, t.Name)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(t.Dims)))
		for _, d := range t.Dims {
			b = binary.LittleEndian.AppendUint64(b, d)
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(t.Type))
		b = binary.LittleEndian.AppendUint64(b, t.Offset)
	}
	return b
}

// HeaderSize returns the exact number of bytes before the data section,
// header padding included.
func HeaderSize(h Header) (uint64, error) {
	l, err := plan(h)
	if err != nil {
		return 0, err
	}
	return l.dataOffset, nil
}

// EncodeHeader returns the bytes NewWriter writes for h (header padding
// included) and the tensors with computed offsets.
func EncodeHeader(h Header) ([]byte, []TensorInfo, error) {
	b, dataOffset, ts, err := EncodeHeaderUnpadded(h)
	if err != nil {
		return nil, nil, err
	}
	return append(b, make([]byte, dataOffset-uint64(len(b)))...), ts, nil
}

// EncodeHeaderUnpadded returns h's header bytes without the padding (which
// a hostile alignment can make 2 GiB long), where the data section starts,
// and the tensors with computed offsets.
func EncodeHeaderUnpadded(h Header) ([]byte, uint64, []TensorInfo, error) {
	l, err := plan(h)
	if err != nil {
		return nil, 0, nil, err
	}
	return l.encode(), l.dataOffset, l.tensors, nil
}

// Writer writes a GGUF file as gguf.cpp does: the header padded with zeros
// to the alignment, then each tensor's data followed by zeros up to the
// alignment (also after the last tensor).
type Writer struct {
	w      io.Writer
	d      *DataWriter
	l      *layout
	cur    int    // tensor being written
	done   uint64 // bytes of tensor cur written
	err    error  // sticky
	closed bool
}

// NewWriter validates h (KVs well formed with unique non-empty keys,
// Alignment consistent with general.alignment, tensor names unique and at
// most 63 bytes, types known, shapes valid), computes the tensor offsets
// and writes the header to w at once. The rules are those of Parse, so
// every header Parse accepts can be written.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	l, err := plan(h)
	if err != nil {
		return nil, err
	}
	wr := &Writer{w: w, l: l}
	// The header, then its padding: one DataWriter tensor's worth.
	hd := NewDataWriter(w, l.align)
	if _, err := hd.Write(l.encode()); err != nil {
		return nil, fmt.Errorf("ggufx: writing header: %w", err)
	}
	if err := hd.EndTensor(); err != nil {
		return nil, fmt.Errorf("ggufx: writing header padding: %w", err)
	}
	wr.d = NewDataWriter(w, l.align)
	return wr, nil
}

// Tensors returns the tensors with their computed offsets and sizes.
func (w *Writer) Tensors() []TensorInfo {
	out := make([]TensorInfo, len(w.l.tensors))
	for i, t := range w.l.tensors {
		t.Dims = slices.Clone(t.Dims)
		out[i] = t
	}
	return out
}

// Alignment is the data alignment in use.
func (w *Writer) Alignment() uint64 { return w.l.align }

// DataOffset is the absolute offset of the data section.
func (w *Writer) DataOffset() uint64 { return w.l.dataOffset }

// FileSize is the size of the complete file.
func (w *Writer) FileSize() uint64 { return w.l.dataOffset + w.l.dataSize }

// Write takes the tensor payloads in order, concatenated, and inserts the
// padding between tensors itself. Writing more bytes than the tensors hold
// is an error.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closed {
		return 0, writerErr("write after Close")
	}
	n := 0
	for len(p) > 0 {
		if w.cur >= len(w.l.tensors) {
			w.err = writerErr("write past the end of the tensor data (%d bytes too many)", len(p))
			return n, w.err
		}
		t := w.l.tensors[w.cur]
		k := min(uint64(len(p)), t.Size-w.done)
		m, err := w.d.Write(p[:k])
		n += m
		w.done += uint64(m)
		if err == nil && uint64(m) != k {
			err = io.ErrShortWrite
		}
		if err != nil {
			w.err = fmt.Errorf("ggufx: tensor %d %q: %w", w.cur, t.Name, err)
			return n, w.err
		}
		p = p[k:]
		if w.done == t.Size {
			if err := w.d.EndTensor(); err != nil {
				w.err = fmt.Errorf("ggufx: padding after tensor %d %q: %w", w.cur, t.Name, err)
				return n, w.err
			}
			w.cur++
			w.done = 0
		}
	}
	return n, nil
}

// Close checks that every byte of every tensor was written and writes the
// padding after the last tensor. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if w.cur < len(w.l.tensors) {
		t := w.l.tensors[w.cur]
		w.err = writerErr("closed with tensor %d %q incomplete: %d of %d bytes written (%d tensors in all)",
			w.cur, t.Name, w.done, t.Size, len(w.l.tensors))
		return w.err
	}
	return nil
}
