package ggufx

import (
	"bytes"
	"fmt"
	"io"
)

// Canonical returns nil iff a Writer given HeaderFromFile(f) and the
// tensors' bytes would reproduce the file byte for byte: data contiguous in
// tensor-info order, the header and every tensor (the last one too) padded
// to Alignment with zero bytes, and nothing after the last padding. Otherwise
// it returns an error saying what differs first. It reads the header again
// and every padding byte, but no tensor data.
func (f *File) Canonical() error {
	fail := func(format string, args ...any) error {
		return &FormatError{File: f.Path, Msg: "not canonical: " + fmt.Sprintf(format, args...)}
	}
	l, err := plan(HeaderFromFile(f))
	if err != nil {
		return fail("the writer rejects this header: %v", err)
	}
	for i, t := range f.Tensors {
		if want := l.tensors[i].Offset; t.Offset != want {
			return fail("tensor %d %q is at data offset %d; written contiguously in tensor-info order it would be at %d",
				i, t.Name, t.Offset, want)
		}
	}
	if l.dataOffset != f.DataOffset {
		return fail("data section starts at %d, the writer would start it at %d", f.DataOffset, l.dataOffset)
	}
	size := uint64(f.FileSize)
	if size < l.dataOffset {
		return fail("file ends at offset %d, inside the header padding (the data section starts at %d)", size, l.dataOffset)
	}

	// Header bytes, then its padding.
	hdr := l.encode()
	buf := make([]byte, 64<<10)
	for pos := uint64(0); pos < uint64(len(hdr)); {
		n := min(uint64(len(buf)), uint64(len(hdr))-pos)
		if err := f.readAt(buf[:n], pos); err != nil {
			return err
		}
		if k := FirstMismatch(buf[:n], hdr[pos:pos+n]); k >= 0 {
			return fail("header byte at offset %d is %#02x, the writer would write %#02x", pos+uint64(k), buf[k], hdr[pos+uint64(k)])
		}
		pos += n
	}
	if at, c, err := f.firstNonZero(buf, l.headerLen, l.dataOffset); err != nil {
		return err
	} else if at >= 0 {
		return fail("header padding byte at offset %d is %#02x, not 0", at, c)
	}

	// Padding after each tensor.
	for i, t := range f.Tensors {
		start := f.DataOffset + t.Offset + t.Size
		end := f.DataOffset + t.Offset + alignUp(t.Size, f.Alignment)
		if end > size {
			return fail("file ends at offset %d, %d bytes short of the end of the padding after tensor %d %q (at %d)",
				size, end-size, i, t.Name, end)
		}
		if at, c, err := f.firstNonZero(buf, start, end); err != nil {
			return err
		} else if at >= 0 {
			return fail("padding byte at offset %d after tensor %d %q is %#02x, not 0", at, i, t.Name, c)
		}
	}
	if want := l.dataOffset + l.dataSize; size != want {
		if size > want {
			return fail("%d trailing bytes after the data section (which ends at %d)", size-want, want)
		}
		return fail("file is %d bytes, the writer would write %d", size, want)
	}
	return nil
}

func (f *File) readAt(p []byte, off uint64) error {
	n, err := f.r.ReadAt(p, int64(off))
	if n == len(p) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return &FormatError{File: f.Path, Msg: fmt.Sprintf("reading %d bytes at offset %d: %v", len(p), off, err), Err: err}
}

// firstNonZero returns the offset and value of the first non-zero byte in
// [start, end) of the file, or -1.
func (f *File) firstNonZero(buf []byte, start, end uint64) (int64, byte, error) {
	for pos := start; pos < end; {
		n := min(uint64(len(buf)), end-pos)
		if err := f.readAt(buf[:n], pos); err != nil {
			return -1, 0, err
		}
		for k, c := range buf[:n] {
			if c != 0 {
				return int64(pos) + int64(k), c, nil
			}
		}
		pos += n
	}
	return -1, 0, nil
}

// FirstMismatch returns the index of the first byte where a and b differ,
// or -1 when they are equal; a and b have the same length.
func FirstMismatch(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
