package repack

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/semaphore"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
)

// The repack pipeline, around one job value. newJob checks the options and
// the outputs before any work and decides what the header alone decides
// (preDecide: which tensors are candidates, the I2_S tails, the header
// room reserved as if every candidate became BITCOS). Then one file
// (writeFile) or a shard set (writeShards, shards.go for the cuts) is
// written: the data pass (writeData) decides and encodes the candidates on
// workers (encode.go) and streams every tensor in order into a dataOut
// (dataout.go), the real header goes into the reserved room, the output is
// flushed while it is read back (checkWritten), and only then named.

// job is one repack: its input, options and report, and what each step
// hands the next.
type job struct {
	f   *input
	opt Options // Output and Workers filled in (newJob)
	rep *Report

	dec      []Decision     // one per input tensor, completed by the data pass
	cand     []bool         // the tensors that must be read to be decided (preDecide)
	tails    map[int][]byte // I2_S tails kept as KVs (header.go)
	reserved uint64         // the header's room: every candidate as BITCOS
	prog     *jobProgress
}

// newJob checks opt against f (the input at in, opened) and the outputs
// it would write, and pre-decides every tensor.
func newJob(f *input, in string, opt Options) (*job, error) {
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
	var err error
	if opt.Split.active() {
		err = checkShardOutputs(in, strings.TrimSuffix(opt.Output, ".gguf"), opt.Replace)
	} else {
		err = checkOutput(in, opt.Output, opt.Replace)
	}
	if err != nil {
		return nil, defaultNameTaken(err, in, defaulted)
	}
	j := &job{f: f, opt: opt, rep: &Report{Input: in, Output: opt.Output, InputBytes: f.FileSize, Warnings: undescribed(f)}}
	if err := f.Canonical(); err != nil {
		j.rep.Canonical = err.Error()
	}
	if err := j.preDecide(); err != nil {
		return nil, err
	}
	j.prog = newJobProgress(f, j.dec, j.cand, opt)
	return j, nil
}

// preDecide decides every tensor as far as the header allows, finds the
// I2_S tails and sizes the header room.
func (j *job) preDecide() error {
	f, opt := j.f, j.opt
	f.heads = opt.Heads
	for name := range opt.Heads {
		if _, ok := f.Tensor(name); !ok && name != OutputW {
			return fmt.Errorf("%s: no tensor %q to quantize", f.Path, name)
		}
	}
	j.dec = make([]Decision, len(f.Tensors))
	j.cand = make([]bool, len(f.Tensors))
	for i := range f.Tensors {
		j.rep.floatMaster = j.rep.floatMaster || (!opt.Ternarize && ternarizable(f.Tensors[i]))
		j.dec[i], j.cand[i] = preDecide(f, i, opt.Ternarize)
		if j.dec[i].err != nil {
			return j.dec[i].err
		}
	}
	var err error
	if j.tails, err = i2sTails(f, j.cand); err != nil {
		return err
	}
	if j.reserved, err = ggufx.HeaderSize(headerFor(f, j.dec, j.cand, true, j.tails)); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	return nil
}

// header is the output header for the decisions dec, fitted into the
// reserved room.
func (j *job) header(dec []Decision) (ggufx.Header, error) {
	h, err := fitHeader(headerFor(j.f, dec, j.cand, false, j.tails), j.reserved)
	if err != nil {
		return h, fmt.Errorf("%s: %w", j.f.Path, err)
	}
	return h, nil
}

// writeFile writes the repack as one file and completes the report.
func (j *job) writeFile() (*Report, error) {
	f, opt, rep := j.f, j.opt, j.rep
	tmp, err := createOutput(opt.Output, inputPerm(rep.Input), opt.Replace)
	if err != nil {
		return nil, err
	}
	defer tmp.Abort() // nothing after a Commit
	spans, err := j.writeData(singleOut(tmp.File, j.reserved, f.Alignment))
	if err != nil {
		return nil, err
	}
	written := spans[0]
	h, err := j.header(j.dec)
	if err != nil {
		return nil, err
	}
	if err := ggufx.WriteHeaderAt(tmp, h, j.reserved, written); err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	if !rep.summarize(j.dec, opt.Force) {
		return rep, nil // the deferred Abort discards the output
	}
	// The read-back check runs while the kernel writes the file out: both
	// must finish before the rename.
	checked := make(chan error, 1)
	end := dataEnd(j.reserved, written, f.Alignment)
	j.prog.phase("flush")
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
	j.prog.done()
	if st, err := os.Stat(opt.Output); err == nil {
		rep.OutputBytes = st.Size()
	}
	return rep, nil
}

// writeShards writes the repack as a shard set (shards.go says how) and
// completes the report.
func (j *job) writeShards() (*Report, error) {
	f, opt, rep := j.f, j.opt, j.rep
	if f.Alignment != ggufx.DefaultAlignment {
		return nil, fmt.Errorf("%s: alignment %d: shards use llama-gguf-split's fixed %d", f.Path, f.Alignment, ggufx.DefaultAlignment)
	}
	plan := slices.Clone(j.dec)
	if err := planDecisions(f, plan, j.cand, opt.Workers, j.prog); err != nil {
		return nil, err
	}
	if afterPlan != nil {
		afterPlan(plan)
	}
	if !rep.summarize(plan, opt.Force) {
		return rep, nil
	}
	h, err := j.header(plan)
	if err != nil {
		return nil, err
	}
	starts, err := shardStarts(h.Tensors, opt.Split)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	outs, o, err := j.createShards(h, starts)
	defer func() {
		for _, o := range outs {
			o.Abort() // nothing once committed
		}
	}()
	if err != nil {
		return nil, err
	}

	j.prog.phase("repack")
	spans, err := j.writeData(o)
	if err != nil {
		return nil, err
	}
	// The headers of what was written: the same as planned, as every
	// tensor was checked against the plan; WriteHeaderAt checks the layout.
	if h, err = j.header(j.dec); err != nil {
		return nil, err
	}
	headers := shardHeaders(h, starts)
	for s, out := range outs {
		if err := ggufx.WriteHeaderAt(out, headers[s], o.start[s], spans[s]); err != nil {
			return nil, fmt.Errorf("%s: %w", out.Target(), err)
		}
	}
	j.prog.phase("flush")
	if err := syncAndCheck(outs, headers, o.start, spans); err != nil {
		return nil, err
	}
	if err := atomicfile.CommitAll(outs...); err != nil {
		return nil, err
	}
	rep.Tensors = j.dec
	for s, out := range outs {
		rep.Shards = append(rep.Shards, out.Target())
		rep.OutputBytes += dataEnd(o.start[s], spans[s], ggufx.DefaultAlignment)
	}
	rep.Output = rep.Shards[0]
	j.prog.done()
	return rep, nil
}

// createShards starts writing the shards of the planned header h cut at
// starts, and returns them (also when it fails: the caller aborts them)
// with the dataOut that fills their data sections.
func (j *job) createShards(h ggufx.Header, starts []int) ([]*atomicfile.File, *dataOut, error) {
	headers := shardHeaders(h, starts)
	prefix := strings.TrimSuffix(j.opt.Output, ".gguf")
	outs := make([]*atomicfile.File, 0, len(starts))
	o := &dataOut{first: starts, align: ggufx.DefaultAlignment, want: h.Tensors, cur: -1}
	for s := range starts {
		start, err := ggufx.HeaderSize(headers[s])
		if err != nil {
			return outs, nil, fmt.Errorf("%s: %w", j.opt.Output, err)
		}
		path := ggufsplit.Path(prefix, s, len(starts))
		if err := checkOutput(j.rep.Input, path, j.opt.Replace); err != nil {
			return outs, nil, err
		}
		out, err := createOutput(path, inputPerm(j.rep.Input), j.opt.Replace)
		if err != nil {
			return outs, nil, err
		}
		outs = append(outs, out)
		o.files, o.start = append(o.files, out.File), append(o.start, start)
	}
	return outs, o, nil
}

// lookAheadBytes bounds the encoded data waiting to be written.
var lookAheadBytes int64 = 96 << 20 // a variable for tests

// writeData writes the data sections of o: candidates are decided and
// encoded on worker goroutines (j.dec is updated), in order with bounded
// look-ahead; the other tensors are streamed from the input. It returns
// where each file's tensors were written.
func (j *job) writeData(o *dataOut) ([][]ggufx.Span, error) {
	f, dec, cand, opt, prog := j.f, j.dec, j.cand, j.opt, j.prog
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
