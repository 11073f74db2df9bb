package repack

import (
	"errors"
	"fmt"
	"io"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// roundTrip proves that unpack of BITCOS file b gives back stock file a:
// what unpack would write (unpackTo) is streamed into a comparison with a's
// bytes, without writing anything. When a's layout is canonical the
// comparison is with a's file byte for byte; otherwise (a file no writer
// reproduces: odd padding, gaps, trailing bytes) with a's KVs and tensor
// bytes in the canonical layout, which is all unpack can restore, and
// v.RoundTrip says so.
func roundTrip(v *VerifyResult, a, b *input) error {
	var exp io.Reader
	v.RoundTrip = RoundTripIdentical
	if a.Canonical() == nil {
		exp = io.NewSectionReader(a.ReaderAt(), 0, a.FileSize)
	} else {
		v.RoundTrip = RoundTripCanonical
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeCanonical(a, pw)) }()
		defer pr.Close()
		exp = pr
	}
	cmp := &cmpWriter{exp: exp}
	err := unpackTo(b, cmp)
	if err == nil {
		// The original must end where the unpack ends.
		var one [1]byte
		if n, _ := io.ReadFull(exp, one[:]); n > 0 {
			cmp.at, cmp.note = cmp.off, "the original goes on after the end of the unpacked file"
			err = errRoundTrip
		}
	}
	if !errors.Is(err, errRoundTrip) {
		return err
	}
	v.RoundTrip = "differs"
	v.diff("unpack would not give the original back: %s at byte %d (%s)", cmp.note, cmp.at, regionAt(b, cmp.at))
	return nil
}

// writeCanonical writes a in the layout ggufx's writer gives its header.
func writeCanonical(a *input, w io.Writer) error {
	gw, err := ggufx.NewWriter(w, ggufx.HeaderFromFile(a.File))
	if err != nil {
		return err
	}
	for i := range a.Tensors {
		if _, err := io.Copy(gw, a.Section(i)); err != nil {
			return err
		}
	}
	return gw.Close()
}

var errRoundTrip = errors.New("round trip differs")

// cmpWriter compares what is written to it with exp, and fails the write
// (errRoundTrip) at the first difference.
type cmpWriter struct {
	exp  io.Reader
	off  int64 // bytes compared so far
	at   int64 // where the first difference is
	note string
	buf  []byte
}

func (c *cmpWriter) Write(p []byte) (int, error) {
	for done := 0; done < len(p); {
		chunk := p[done:min(len(p), done+1<<20)]
		if cap(c.buf) < len(chunk) {
			c.buf = make([]byte, 1<<20)
		}
		got := c.buf[:len(chunk)]
		n, err := io.ReadFull(c.exp, got)
		if k := ggufx.FirstMismatch(got[:n], chunk[:n]); k >= 0 {
			c.at, c.note = c.off+int64(k), fmt.Sprintf("the original has %#02x, unpack %#02x", got[k], chunk[k])
			return done, errRoundTrip
		}
		if n < len(chunk) {
			if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
				return done, err
			}
			c.at, c.note = c.off+int64(n), "the original ends"
			return done, errRoundTrip
		}
		c.off += int64(n)
		done += n
	}
	return len(p), nil
}

// regionAt names what lies at byte off of b's unpacked file: the header or
// a tensor.
func regionAt(b *input, off int64) string {
	gw, err := ggufx.NewWriter(io.Discard, unpackHeader(b))
	if err != nil {
		return "?"
	}
	if uint64(off) < gw.DataOffset() {
		return "in the header"
	}
	rel := uint64(off) - gw.DataOffset()
	for _, t := range gw.Tensors() {
		if rel >= t.Offset && rel < t.Offset+pad(t.Size, gw.Alignment()) {
			return fmt.Sprintf("in tensor %q, %v", t.Name, t.Type)
		}
	}
	return "after the last tensor"
}

// nonZeros counts the non-zero weights of p.
func nonZeros(p *format.Planes) int64 {
	var n int64
	for _, c := range format.RowNonZeros(p, nil) {
		n += int64(c)
	}
	return n
}
