package repack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// What the data pass (pipeline.go) does with one tensor: a candidate is
// decided and encoded on a worker (encodeTensor), any other tensor, and a
// candidate kept in its type, is copied as it is (copyTensor).

// piece is one tensor's output, ready to be written.
type piece struct {
	idx     int      // input tensor index
	bufs    [][]byte // encoded data, one per output tensor; nil: copy the input
	err     error
	release func() // returns the piece's budget and buffers once written
}

// copyRangeMin is the smallest tensor copied inside the kernel.
var copyRangeMin uint64 = 1 << 20

// copyTensor writes tensor i of f to w unchanged and returns its length:
// inside the kernel when it can (after flushing bw, w's buffer, to out), else
// in chunks through w.
func copyTensor(w *ggufx.DataWriter, bw *bufio.Writer, out *os.File, f *input, i int, buf []byte, progress func(int64)) (int64, error) {
	var n int64
	t := f.Tensors[i]
	if f.fd != nil && t.Size >= copyRangeMin {
		if err := bw.Flush(); err != nil {
			return 0, err
		}
		done, err := copyRange(out, f.fd, int64(f.DataOffset+t.Offset), int64(t.Size))
		if done {
			if err != nil {
				return 0, fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
			}
			w.Wrote(t.Size)
			progress(int64(t.Size))
			return int64(t.Size), nil
		}
	}
	if f.data != nil {
		data, err := f.tensor(i, nil)
		if err != nil {
			return 0, err
		}
		for len(data) > 0 {
			c := data[:min(len(data), 8<<20)]
			if _, err := w.Write(c); err != nil {
				return 0, err
			}
			f.releaseRange(i, uint64(n), uint64(n)+uint64(len(c)))
			n += int64(len(c))
			data = data[len(c):]
			progress(n)
		}
		return n, nil
	}
	sec := f.Section(i)
	for {
		m, rerr := sec.Read(buf)
		if m > 0 {
			if _, err := w.Write(buf[:m]); err != nil {
				return 0, err
			}
			n += int64(m)
			progress(n)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return 0, fmt.Errorf("%s: tensor %q: %w", f.Path, f.Tensors[i].Name, rerr)
		}
	}
}

// encodeTensor decodes candidate i, decides it (decide) and encodes it as
// BITCOS (or TQ2_0 for a master), proving the encoding: the bytes about to be
// written must decode to the source's codes exactly (format.VerifyBitcos);
// the scales are the source's bits, copied. A kept tensor returns a piece
// without data: the writer copies the source bytes.
func encodeTensor(f *input, i int, d *Decision, st *encState) piece {
	if d.head != nil {
		out := st.grow(d.head.Bytes(int(d.Weights)))
		if err := quantizeHead(f, i, *d.head, out, runtime.GOMAXPROCS(0)); err != nil {
			return piece{err: err}
		}
		return piece{idx: i, bufs: [][]byte{out}}
	}
	b := &st.b
	if err := loadSource(f, i, b, d); err != nil {
		if r := keptReason(err); r != "" && !d.master {
			keep(d, r)
			return piece{idx: i}
		}
		return piece{err: err}
	}
	t := f.Tensors[i]
	st.nnz = format.RowNonZeros(&b.p, st.nnz)
	decide(f, d, st.nnz, reencodes(d, b))
	switch d.Layout {
	case LayoutKept:
		return piece{idx: i}
	case LayoutTQ2:
		out := st.grow(format.TQ2_0.TensorBytes(b.p.K, b.p.Rows))
		if err := format.TQ2_0.Encode(&b.p, &b.s, out); err != nil {
			return piece{err: fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)}
		}
		return piece{idx: i, bufs: [][]byte{out}}
	}
	off, err := format.BitcosRowOffsets(st.nnz)
	if err != nil {
		return piece{err: fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)}
	}
	nb, ns, ni := format.BitcosBitmapBytes(b.p.K, b.p.Rows), int(off[b.p.Rows])+format.SignTailBytes, 4*(b.p.Rows+1)
	st.scales = scaleBytes(&b.s, st.scales)
	out := st.grow(nb + ns + ni + len(st.scales))
	bitmap, signs, index, scales := out[:nb], out[nb:nb+ns], out[nb+ns:nb+ns+ni], out[nb+ns+ni:]
	copy(scales, st.scales)
	if len(signs) != d.signBytes {
		return piece{err: fmt.Errorf("%s: tensor %q changed while being read (sign bytes %d, planned %d)", f.Path, t.Name, len(signs), d.signBytes)}
	}
	if err := format.EncodeBitcos(&b.p, off, bitmap, signs, index); err != nil {
		return piece{err: fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)}
	}
	if err := format.VerifyBitcos(&b.p, bitmap, signs, index); err != nil {
		return piece{err: fmt.Errorf("%s: tensor %q: internal error, the BITCOS encoding does not decode to the source: %w", f.Path, t.Name, err)}
	}
	return piece{idx: i, bufs: [][]byte{bitmap, signs, index, scales}}
}

// encState is one encoding's reusable memory: decoded planes and the output
// buffer (in use until the piece
// is written).
type encState struct {
	b      tensorBuf
	nnz    []int
	scales []byte
	out    []byte
}

var encPool = sync.Pool{New: func() any { return new(encState) }}

// grow returns st.out resized to n bytes (contents undefined).
func (st *encState) grow(n int) []byte {
	if cap(st.out) < n {
		st.out = make([]byte, n)
	}
	st.out = st.out[:n]
	return st.out
}
