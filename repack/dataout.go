package repack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// dataOut is where writeData puts the output tensors, in order: the data
// section of one file, or those of the shards of a set, each file taking
// the tensors from its first one up to the next file's first.
type dataOut struct {
	files []*os.File
	start []uint64 // where each file's data section begins
	first []int    // the first output tensor of each file (first[0] is 0)
	align uint64
	// want, if set, is the planned list of output tensors (sharded output):
	// every tensor is checked against it before a byte of it is written.
	want []ggufx.TensorInfo

	cur   int // the file being written; -1 before the first tensor
	next  int // the output tensor about to be written
	bw    *bufio.Writer
	dw    *ggufx.DataWriter
	spans [][]ggufx.Span // per file, once it is finished
}

// singleOut writes one file's data section, starting at dataStart.
func singleOut(out *os.File, dataStart, align uint64) *dataOut {
	return &dataOut{files: []*os.File{out}, start: []uint64{dataStart}, first: []int{0}, align: align, cur: -1}
}

// begin readies the writers for the next output tensor, moving on to the
// next file when that tensor is its first.
func (o *dataOut) begin() error {
	if o.cur >= 0 && (o.cur+1 == len(o.files) || o.next < o.first[o.cur+1]) {
		return nil
	}
	if o.cur >= 0 {
		if err := o.finishFile(); err != nil {
			return err
		}
	}
	o.cur++
	if o.cur == len(o.files) {
		return fmt.Errorf("internal error: output tensor %d lies beyond the last output file", o.next)
	}
	f := o.files[o.cur]
	if _, err := f.Seek(int64(o.start[o.cur]), io.SeekStart); err != nil {
		return err
	}
	if o.bw == nil {
		o.bw = bufio.NewWriterSize(f, 4<<20)
	} else {
		o.bw.Reset(f)
	}
	o.dw = ggufx.NewDataWriter(o.bw, o.align)
	return nil
}

// end pads the tensor just written.
func (o *dataOut) end() error {
	o.next++
	return o.dw.EndTensor()
}

// file is the file being written (for in-kernel copies, after o.bw is
// flushed).
func (o *dataOut) file() *os.File { return o.files[o.cur] }

func (o *dataOut) finishFile() error {
	if err := o.bw.Flush(); err != nil {
		return err
	}
	o.spans = append(o.spans, o.dw.Spans())
	return nil
}

// finish flushes the last file and returns where each file's tensors were
// written (an empty list for a file without tensors).
func (o *dataOut) finish() ([][]ggufx.Span, error) {
	if o.cur >= 0 {
		if err := o.finishFile(); err != nil {
			return nil, err
		}
	}
	if o.want != nil && o.next != len(o.want) {
		return nil, fmt.Errorf("internal error: %d output tensors written, %d planned", o.next, len(o.want))
	}
	for len(o.spans) < len(o.files) {
		o.spans = append(o.spans, nil)
	}
	return o.spans, nil
}

// check compares what input tensor i of f becomes with decision d, sizes
// bytes each (encoded, or the source's bytes when copied), with the plan.
func (o *dataOut) check(f *input, i int, d *Decision, sizes []uint64) error {
	if o.want == nil {
		return nil
	}
	got := outputTensors(f, i, d, false)
	for k, g := range got {
		j := o.next + k
		if j >= len(o.want) {
			return planMismatch(f, i, g, sizes[k], nil)
		}
		w := o.want[j]
		wsize, err := ggufx.TensorBytes(w.Type, w.Dims)
		if err != nil {
			return err
		}
		if g.Name != w.Name || g.Type != w.Type || !slices.Equal(g.Dims, w.Dims) || sizes[k] != wsize {
			return planMismatch(f, i, g, sizes[k], &w)
		}
	}
	return nil
}

func planMismatch(f *input, i int, got ggufx.TensorInfo, size uint64, want *ggufx.TensorInfo) error {
	plan := "nothing"
	if want != nil {
		n, _ := ggufx.TensorBytes(want.Type, want.Dims)
		plan = fmt.Sprintf("%q %v %v (%d bytes)", want.Name, want.Type, want.Dims, n)
	}
	return fmt.Errorf("%s: tensor %q: encoded as %q %v %v (%d bytes), but the shards were planned with %s there (did the input change while being read?); no shard was written",
		f.Path, f.Tensors[i].Name, got.Name, got.Type, got.Dims, size, plan)
}
