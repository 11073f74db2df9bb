package repack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Options control Repack.
type Options struct {
	// Output is the path written; default: DefaultOutput.
	Output string
	// Workers is the number of tensors analysed and encoded in parallel
	// (default GOMAXPROCS). Memory is about two tensors per worker.
	Workers int
	// Ternarize ternarizes the projection weights of a float (F16, BF16,
	// F32) master with BitNet's absmean rule: the one lossy path (master.go).
	Ternarize bool
	// Heads maps head tensor names to the quantized type they get
	// (format.HeadTypes: q8_0, q6_K, q4_K; see HeadPlan). Lossy, by
	// request only.
	Heads map[string]format.HeadType
	// Split, if set, writes shards as llama-gguf-split does
	// (OUTPUT-without-.gguf-00001-of-0000N.gguf) instead of one file
	// (shards.go).
	Split SplitOptions
	// Force writes the output even when nothing gains: no tensor becomes
	// BITCOS (or is ternarized, or has its head quantized), so the output
	// would only be the input with bitcos.* keys, a little larger.
	Force bool
	// Replace lets the output replace an existing file (never the input);
	// without it an existing output is refused before any work.
	Replace bool
	// Progress, if set, is called from one goroutine as the job goes on,
	// with the phase and the work done of that phase's total, in bytes:
	// for sharded output "plan" (the candidates' bytes), then "repack"
	// (the input's bytes), then "flush", the flush to disk with the
	// read-back check, whose total is -1 (not measurable as it goes), and
	// "done" (1 of 1) once the output has its name.
	Progress func(phase string, done, total int64)
}

// Report summarises a repack.
type Report struct {
	Input       string     `json:"input"`
	Output      string     `json:"output"`
	InputBytes  int64      `json:"input_bytes"`
	OutputBytes int64      `json:"output_bytes"`
	Converted   int        `json:"converted"`
	Kept        int        `json:"kept"`
	Tensors     []Decision `json:"tensors"`
	// Shards are the files written when splitting.
	Shards []string `json:"shards,omitempty"`
	// Canonical is empty when an unpack reproduces the input byte for byte,
	// else why it cannot (the input's own layout is not canonical).
	Canonical string `json:"canonical_note,omitempty"`
	// NotWritten says why no output was written (nothing gains; see
	// Options.Force), or is empty.
	NotWritten string `json:"not_written,omitempty"`
	// Warnings are what the user must hear even though the repack worked:
	// input bytes the header does not describe (not copied), no tensors.
	Warnings []string `json:"warnings,omitempty"`
	// floatMaster: the input has float projections that --ternarize would
	// ternarize, and it was not asked (NotWritten then says so).
	floatMaster bool
}

// DefaultOutput is where repack writes when no output is given: the
// source type's label in the name replaced by BITCOS, or -BITCOS added
// (identity.go).
func DefaultOutput(in string) string { return outputName(in) }

// Repack rewrites the GGUF file at in with every ternary tensor that gets
// smaller stored as BITCOS. The output is written unnamed (atomicfile) in the
// target directory, checked, and only then named; the input is only read.
//
// One pass over the data: the header is reserved first (header.go), each
// candidate tensor is decoded, decided and encoded by a worker, the writer
// streams the results in order, and the real header goes into the reserved
// room at the end. Sharded output plans first (shards.go).
func Repack(in string, opt Options) (*Report, error) {
	f, done, err := openJoined(in)
	if err != nil {
		return nil, err
	}
	defer done()
	defer f.Close()
	if f.meta != nil {
		return nil, fmt.Errorf("%s: already a BITCOS file (has %s); nothing to repack", in, bitcos.KeyVersion)
	}
	defaulted := opt.Output == ""
	if defaulted {
		opt.Output = DefaultOutput(in)
	}
	if opt.Workers < 0 {
		return nil, fmt.Errorf("workers %d: want a positive count (0: one per CPU)", opt.Workers)
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Split.active() {
		err = checkShardOutputs(in, strings.TrimSuffix(opt.Output, ".gguf"), opt.Replace)
	} else {
		err = checkOutput(in, opt.Output, opt.Replace)
	}
	if err != nil {
		return nil, defaultNameTaken(err, in, defaulted)
	}
	rep := &Report{Input: in, Output: opt.Output, InputBytes: f.FileSize, Warnings: undescribed(f)}
	if err := f.Canonical(); err != nil {
		rep.Canonical = err.Error()
	}

	f.heads = opt.Heads
	for name := range opt.Heads {
		if _, ok := f.Tensor(name); !ok && name != OutputW {
			return nil, fmt.Errorf("%s: no tensor %q to quantize", in, name)
		}
	}
	dec := make([]Decision, len(f.Tensors))
	cand := make([]bool, len(f.Tensors))
	for i := range f.Tensors {
		rep.floatMaster = rep.floatMaster || (!opt.Ternarize && ternarizable(f.Tensors[i]))
		dec[i], cand[i] = preDecide(f, i, opt.Ternarize)
		if dec[i].err != nil {
			return nil, dec[i].err
		}
	}
	tails, err := i2sTails(f, cand)
	if err != nil {
		return nil, err
	}
	reserved, err := ggufx.HeaderSize(headerFor(f, dec, cand, true, tails))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}

	if opt.Split.active() {
		return repackShards(f, rep, dec, cand, tails, reserved, opt)
	}

	tmp, err := createOutput(opt.Output, inputPerm(in), opt.Replace)
	if err != nil {
		return nil, err
	}
	defer tmp.Abort() // nothing after a Commit
	prog := newJobProgress(f, dec, cand, opt)
	spans, err := writeData(f, dec, cand, singleOut(tmp.File, reserved, f.Alignment), opt, prog)
	if err != nil {
		return nil, err
	}
	written := spans[0]
	h, err := fitHeader(headerFor(f, dec, cand, false, tails), reserved)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	if err := ggufx.WriteHeaderAt(tmp, h, reserved, written); err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	if !rep.summarize(dec, opt.Force) {
		return rep, nil // the deferred Abort discards the output
	}
	// The read-back check runs while the kernel writes the file out: both
	// must finish before the rename.
	checked := make(chan error, 1)
	end := int64(reserved)
	if len(written) > 0 {
		last := written[len(written)-1]
		end += int64(pad(last.Offset+last.Size, f.Alignment))
	}
	prog.phase("flush")
	go func() { checked <- checkWritten(tmp.ReadPath(), h, written, end) }()
	syncErr := tmp.Sync()
	checkErr := <-checked
	if syncErr != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, syncErr)
	}
	if checkErr != nil {
		return nil, fmt.Errorf("%s: the written output did not read back intact: %w", opt.Output, checkErr)
	}
	if err := tmp.Commit(); err != nil {
		return nil, err
	}
	prog.done()
	if st, err := os.Stat(opt.Output); err == nil {
		rep.OutputBytes = st.Size()
	}
	return rep, nil
}

// summarize counts the decisions dec into r and reports whether the output
// is to be written: when a tensor gains (or force), else r says why not.
func (r *Report) summarize(dec []Decision, force bool) bool {
	gains := false
	for _, d := range dec {
		switch d.Layout {
		case LayoutBitcos:
			r.Converted++
		case LayoutKept:
			r.Kept++
		}
		gains = gains || d.Layout == LayoutBitcos || d.Layout == LayoutTQ2 || d.head != nil
	}
	r.Tensors = dec
	if !gains && !force {
		r.NotWritten = "no tensor is smaller as BITCOS, so the output would only be the input with bitcos.* keys; nothing was written (--force writes it anyway)"
		if r.floatMaster {
			r.NotWritten += "; this is a float master: --ternarize makes its projections ternary (BitNet's absmean rule, lossy) and stores them as BITCOS"
		}
		r.Output, r.OutputBytes = "", 0
		return false
	}
	return true
}

// undescribed warns of input bytes that no tensor of the header covers:
// repack copies only what the header describes.
func undescribed(f *input) []string {
	end := f.DataOffset
	for _, t := range f.Tensors {
		end = max(end, f.DataOffset+pad(t.Offset+t.Size, f.Alignment))
	}
	var w []string
	if len(f.Tensors) == 0 {
		w = append(w, fmt.Sprintf("%s: the header lists no tensors: the output holds its metadata only", f.Path))
	}
	if rest := f.FileSize - int64(end); rest > 0 {
		w = append(w, fmt.Sprintf("%s: %d bytes (%.1f%% of the file) after the end of the data the header describes are not tensor data by this header, and are not copied",
			f.Path, rest, 100*float64(rest)/float64(f.FileSize)))
	}
	return w
}

// inputPerm is the mode outputs made from in get: as readable as the input.
func inputPerm(in string) os.FileMode {
	if st, err := os.Stat(in); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// jobProgress reports the phases of a repack (Options.Progress), each with
// its own total: the planning pass of sharded output in the candidates'
// bytes it reads, the data pass in the input's bytes, the flush to disk
// and read-back check with no total (-1: it cannot be measured as it
// goes), then "done".
type jobProgress struct {
	fn         func(phase string, done, total int64)
	plan, data int64
	name       string
}

func newJobProgress(f *input, dec []Decision, cand []bool, opt Options) *jobProgress {
	p := &jobProgress{fn: opt.Progress, name: "repack"}
	for i, t := range f.Tensors {
		p.data += int64(t.Size)
		if opt.Split.active() && cand[i] && dec[i].head == nil {
			p.plan += int64(t.Size)
		}
	}
	if opt.Split.active() {
		p.name = "plan"
	}
	return p
}

// total is the current phase's.
func (p *jobProgress) total() int64 {
	switch p.name {
	case "plan":
		return p.plan
	case "repack":
		return p.data
	}
	return -1
}

// report says that done bytes of the current phase are done.
func (p *jobProgress) report(done int64) {
	if p.fn != nil {
		p.fn(p.name, done, p.total())
	}
}

// phase starts the next phase: the ones before it are complete.
func (p *jobProgress) phase(name string) {
	p.name = name
	p.report(0)
}

// done says the whole job is.
func (p *jobProgress) done() {
	if p.fn != nil {
		p.fn("done", 1, 1)
	}
}

// lookAheadBytes bounds the encoded data waiting to be written.
var lookAheadBytes int64 = 96 << 20 // a variable for tests

// piece is one tensor's output, ready to be written.
type piece struct {
	idx     int      // input tensor index
	bufs    [][]byte // encoded data, one per output tensor; nil: copy the input
	err     error
	release func() // returns the piece's budget and buffers once written
}

// writeData writes the data sections of o: candidates are decided and
// encoded on worker goroutines (dec is updated), in order with bounded
// look-ahead; the other tensors are streamed from the input. It returns
// where each file's tensors were written.
func writeData(f *input, dec []Decision, cand []bool, o *dataOut, opt Options, prog *jobProgress) ([][]ggufx.Span, error) {
	total := prog.data
	// Futures in input order. Encodings run on at most Workers goroutines
	// and hold at most lookAheadBytes of data waiting to be written (a
	// larger tensor runs alone), so memory stays about lookAheadBytes + one
	// tensor per worker whatever the model.
	futures := make(chan chan piece, 1024)
	workers := semaphore.NewWeighted(int64(opt.Workers))
	budget := semaphore.NewWeighted(lookAheadBytes)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(futures)
		for i := range f.Tensors {
			ch := make(chan piece, 1)
			select {
			case futures <- ch:
			case <-stop:
				return
			}
			if !cand[i] {
				ch <- piece{idx: i}
				continue
			}
			cost := min(dec[i].SourceBytes, lookAheadBytes)
			budget.Acquire(context.Background(), cost)
			workers.Acquire(context.Background(), 1)
			go func(i int) {
				defer workers.Release(1)
				st := encPool.Get().(*encState)
				var pc piece
				func() {
					defer recoverPiece(f, i, &pc)
					pc = encodeTensor(f, i, &dec[i], st)
				}()
				f.release(i)
				pc.release = func() {
					encPool.Put(st)
					budget.Release(cost)
				}
				ch <- pc
			}(i)
		}
	}()
	var done int64
	buf := make([]byte, 1<<20)
	var firstErr error
	for ch := range futures {
		pc := <-ch
		if firstErr == nil && pc.err != nil {
			firstErr = pc.err
		}
		if firstErr == nil {
			firstErr = writePiece(f, &dec[pc.idx], pc, o, buf, func(n int64) { prog.report(done + n) })
			if pc.bufs == nil {
				done += int64(f.Tensors[pc.idx].Size)
			} else {
				done += dec[pc.idx].SourceBytes
			}
			prog.report(min(done, total))
		}
		if pc.release != nil {
			pc.release()
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	spans, err := o.finish()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	return spans, nil
}

// writePiece writes the output tensors of one piece to o, after checking
// them against o's plan.
func writePiece(f *input, d *Decision, pc piece, o *dataOut, buf []byte, progress func(int64)) error {
	if pc.bufs == nil {
		if err := o.check(f, pc.idx, d, []uint64{f.Tensors[pc.idx].Size}); err != nil {
			return err
		}
		if err := o.begin(); err != nil {
			return err
		}
		_, err := copyTensor(o.dw, o.bw, o.file(), f, pc.idx, buf, progress)
		f.release(pc.idx)
		if err != nil {
			return err
		}
		return o.end()
	}
	sizes := make([]uint64, len(pc.bufs))
	for k, b := range pc.bufs {
		sizes[k] = uint64(len(b))
	}
	if err := o.check(f, pc.idx, d, sizes); err != nil {
		return err
	}
	for _, b := range pc.bufs {
		if err := o.begin(); err != nil {
			return err
		}
		if _, err := o.dw.Write(b); err != nil {
			return err
		}
		if err := o.end(); err != nil {
			return err
		}
	}
	return nil
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

// checkWritten re-opens the written file and checks that it parses to
// exactly the planned header and that every tensor sits where the writer put
// it, with the size it wrote. (The data itself was proven before it was
// written: encodeTensor decodes every BITCOS encoding back and compares it
// with the source; everything else is a byte copy. Reading it back would
// only read the page cache again.)
func checkWritten(path string, h ggufx.Header, written []ggufx.Span, size int64) error {
	g, err := ggufx.Open(path)
	if err != nil {
		return err
	}
	defer g.Close()
	if len(g.Tensors) != len(h.Tensors) || len(g.KVs) != len(h.KVs) || len(written) != len(h.Tensors) {
		return fmt.Errorf("header has %d tensors and %d KVs, want %d and %d", len(g.Tensors), len(g.KVs), len(h.Tensors), len(h.KVs))
	}
	for i, t := range g.Tensors {
		want := h.Tensors[i]
		if t.Name != want.Name || t.Type != want.Type || !equalDims(t.Dims, want.Dims) {
			return fmt.Errorf("tensor %d is %q %v %v, want %q %v %v", i, t.Name, t.Type, t.Dims, want.Name, want.Type, want.Dims)
		}
		if t.Offset != written[i].Offset || t.Size != written[i].Size {
			return fmt.Errorf("tensor %q: header says %d bytes at %d, %d were written at %d", t.Name, t.Size, t.Offset, written[i].Size, written[i].Offset)
		}
	}
	if g.FileSize != size {
		return fmt.Errorf("file is %d bytes, %d were written", g.FileSize, size)
	}
	return nil
}
