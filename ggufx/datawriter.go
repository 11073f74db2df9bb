package ggufx

import (
	"fmt"
	"io"
)

// DataWriter writes a data section: tensors in order, each followed by
// zero padding to the alignment, as gguf.cpp lays them out (the last one
// padded too). It is the one padding writer: Writer uses it behind a
// header it knows in advance, and a writer that learns the header only at
// the end (repack's one pass: the sign streams' lengths are known once
// encoded) uses it alone, then WriteHeaderAt.
type DataWriter struct {
	w     io.Writer
	align uint64
	n     uint64 // bytes of the current tensor so far
	pos   uint64 // data-relative offset of the current tensor
	spans []Span
	zeros []byte
}

// Span is where one tensor's data was written, relative to the start of the
// data section, and how long it is (without padding).
type Span struct{ Offset, Size uint64 }

// NewDataWriter writes tensor data to w with the given alignment.
func NewDataWriter(w io.Writer, align uint64) *DataWriter {
	return &DataWriter{w: w, align: align, zeros: make([]byte, min(align, 4096))}
}

// Write writes bytes of the current tensor.
func (d *DataWriter) Write(p []byte) (int, error) {
	n, err := d.w.Write(p)
	d.n += uint64(n)
	if err == nil && n != len(p) {
		err = io.ErrShortWrite
	}
	return n, err
}

// Wrote counts n bytes of the current tensor that the caller wrote to the
// underlying file by other means (an in-kernel copy), after flushing
// whatever buffers the writer.
func (d *DataWriter) Wrote(n uint64) { d.n += n }

// EndTensor pads the current tensor to the alignment and starts the next.
func (d *DataWriter) EndTensor() error {
	padded := alignUp(d.n, d.align)
	for rest := padded - d.n; rest > 0; {
		k := min(rest, uint64(len(d.zeros)))
		if _, err := d.w.Write(d.zeros[:k]); err != nil {
			return err
		}
		rest -= k
	}
	d.spans = append(d.spans, Span{d.pos, d.n})
	d.pos += padded
	d.n = 0
	return nil
}

// Spans lists the tensors ended so far.
func (d *DataWriter) Spans() []Span { return d.spans }

// Size is the data written so far, padding included.
func (d *DataWriter) Size() uint64 { return d.pos + d.n }

// WriteHeaderAt writes header h at offset 0 of w, into the room of exactly
// reserved bytes (the header, its KVs and tensor infos, padded) left before
// a data section written with spans. It fails, writing nothing, unless h
// lays its tensors out exactly where spans says they are.
func WriteHeaderAt(w io.WriterAt, h Header, reserved uint64, spans []Span) error {
	l, err := plan(h)
	if err != nil {
		return err
	}
	if l.dataOffset != reserved {
		return writerErr("the header takes %d bytes padded, %d were reserved", l.dataOffset, reserved)
	}
	if len(l.tensors) != len(spans) {
		return writerErr("the header lists %d tensors, %d were written", len(l.tensors), len(spans))
	}
	for i, t := range l.tensors {
		if t.Offset != spans[i].Offset || t.Size != spans[i].Size {
			return writerErr("tensor %d %q: the header says %d bytes at %d, %d were written at %d", i, t.Name, t.Size, t.Offset, spans[i].Size, spans[i].Offset)
		}
	}
	buf := make([]byte, reserved)
	copy(buf, l.encode())
	if _, err := w.WriteAt(buf, 0); err != nil {
		return fmt.Errorf("ggufx: writing the header: %w", err)
	}
	return nil
}
