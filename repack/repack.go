package repack

import (
	"bufio"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Options control Repack.
type Options struct {
	// Output is the path written; default: the input with ".gguf" replaced
	// by ".bitcos.gguf".
	Output string
	// Workers is the number of tensors analysed and encoded in parallel
	// (default GOMAXPROCS). Memory is about two tensors per worker.
	Workers int
	// Ternarize ternarizes the projection weights of a float (F16, BF16,
	// F32) master with BitNet's absmean rule: the one lossy path (master.go).
	Ternarize bool
	// Progress, if set, is called with bytes done and total, from one
	// goroutine, as the output is written.
	Progress func(done, total int64)
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
	// Canonical is empty when an unpack reproduces the input byte for byte,
	// else why it cannot (the input's own layout is not canonical).
	Canonical string `json:"canonical_note,omitempty"`
}

// DefaultOutput is where repack writes when no output is given.
func DefaultOutput(in string) string {
	if ext := filepath.Ext(in); ext == ".gguf" {
		return in[:len(in)-len(ext)] + ".bitcos.gguf"
	}
	return in + ".bitcos.gguf"
}

// Repack rewrites the GGUF file at in with every ternary tensor that gets
// smaller stored as BITCOS. The output is written to a temporary file in the
// target directory, checked, and renamed into place; the input is only read.
func Repack(in string, opt Options) (*Report, error) {
	f, err := openInput(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, ok := f.KV(KeyVersion); ok {
		return nil, fmt.Errorf("%s: already a BITCOS file (has %s); nothing to repack", in, KeyVersion)
	}
	for _, t := range f.Tensors {
		if t.Type == ggufx.TypeBITCOS || isCompanion(t.Name) {
			return nil, fmt.Errorf("%s: tensor %q is BITCOS data without %s", in, t.Name, KeyVersion)
		}
	}
	if opt.Output == "" {
		opt.Output = DefaultOutput(in)
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if same, _ := sameFile(in, opt.Output); same {
		return nil, fmt.Errorf("%s: output would overwrite the input", in)
	}
	rep := &Report{Input: in, Output: opt.Output, InputBytes: f.FileSize}
	if err := f.Canonical(); err != nil {
		rep.Canonical = err.Error()
	}

	// Pass 1: decide every tensor (decode, count, size).
	dec, err := analyzeAll(f, opt.Workers, opt.Ternarize)
	if err != nil {
		return nil, err
	}
	rep.Tensors = dec
	h, err := outputHeader(f, dec)
	if err != nil {
		return nil, err
	}
	for _, d := range dec {
		switch d.Layout {
		case LayoutBitcos:
			rep.Converted++
		case LayoutKept:
			rep.Kept++
		}
	}

	// Pass 2: write.
	dir := filepath.Dir(opt.Output)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(opt.Output)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%s: cannot create the output: %w", opt.Output, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sums, err := writeOutput(f, dec, h, tmp, opt)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(in); err == nil {
		tmp.Chmod(st.Mode().Perm()) // the output is as readable as the input
	}
	// The read-back check runs while the kernel writes the file out: both
	// must finish before the rename.
	checked := make(chan error, 1)
	go func() { checked <- checkWritten(tmp.Name(), h, sums, opt.Workers) }()
	syncErr := tmp.Sync()
	checkErr := <-checked
	if syncErr != nil {
		return nil, fmt.Errorf("%s: %w", tmp.Name(), syncErr)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if checkErr != nil {
		return nil, fmt.Errorf("%s: the written output did not read back intact: %w", opt.Output, checkErr)
	}
	if err := os.Rename(tmp.Name(), opt.Output); err != nil {
		return nil, err
	}
	ok = true
	if st, err := os.Stat(opt.Output); err == nil {
		rep.OutputBytes = st.Size()
	}
	return rep, nil
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// analyzeAll runs analyze on every tensor, workers at a time.
func analyzeAll(f *input, workers int, ternarize bool) ([]Decision, error) {
	dec := make([]Decision, len(f.Tensors))
	errs := make([]error, len(f.Tensors))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b tensorBuf
			for i := range jobs {
				dec[i], errs[i] = analyze(f, i, &b, ternarize)
				f.release(i)
			}
		}()
	}
	for i := range f.Tensors {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return dec, nil
}

// outputHeader builds the output's header: the input's KVs then the bitcos.*
// KVs; each converted tensor followed by its three companions.
func outputHeader(f *input, dec []Decision) (ggufx.Header, error) {
	h := ggufx.HeaderFromFile(f.File)
	h.Tensors = nil
	var srcTypes []string
	var tails []ggufx.KV
	var nz, n int64
	count := map[string]int64{}
	master := ""
	var b tensorBuf
	for i, t := range f.Tensors {
		d := dec[i]
		if d.master {
			master = t.Type.String()
		}
		if d.Layout == LayoutTQ2 {
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: ggufx.TypeTQ2_0})
			continue
		}
		if d.Layout != LayoutBitcos {
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type})
			continue
		}
		k, rows := shape2D(t.Dims)
		h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: ggufx.TypeBITCOS})
		s := format.Scales{Group: CodecFor(d.Source).ScaleGroup()}
		h.Tensors = append(h.Tensors, companionInfos(t.Name, k, rows, &s, d.signBytes)...)
		srcTypes = append(srcTypes, d.Source.String())
		count[d.Source.String()] += d.Weights
		nz += d.Weights - d.NonZero
		n += d.Weights
		if t.Type == ggufx.TypeI2_S {
			// The I2_S tail's 28 bytes after the scale are carried in a KV
			// when they are not zero (docs/FORMAT.md).
			if err := loadStock(f, i, &b); err != nil {
				return h, err
			}
			if !allZero(b.s.Tail) {
				tails = append(tails, ggufx.KVUint8Array(KeyI2STail+t.Name, b.s.Tail))
			}
		}
	}
	if len(srcTypes) == 0 && master == "" {
		return h, nil
	}
	main := ""
	for t := range count {
		if main == "" || count[t] > count[main] || (count[t] == count[main] && t < main) {
			main = t
		}
	}
	h.KVs = append(h.KVs,
		ggufx.KVUint32(KeyVersion, FormatVersion),
		ggufx.KVString(KeySourceType, main),
		ggufx.KVFloat32(KeyZeroDensity, float32(float64(nz)/float64(n))),
		ggufx.KVStringArray(KeySourceTypes, srcTypes),
	)
	if master != "" {
		h.KVs = append(h.KVs, ggufx.KVString(KeyMasterType, master))
	}
	sort.Slice(tails, func(a, b int) bool { return tails[a].Key < tails[b].Key })
	h.KVs = append(h.KVs, tails...)
	return h, nil
}

// lookAheadBytes bounds the encoded data waiting to be written.
const lookAheadBytes = 96 << 20

// piece is one encoded tensor ready to be written.
type piece struct {
	idx     int      // input tensor index
	bufs    [][]byte // encoded data, one per output tensor; nil: copy the input
	sums    []uint32 // CRC-32C of each of bufs
	err     error
	release func() // returns the piece's budget and buffers once written
}

// writeOutput writes header and data, encoding converted tensors on worker
// goroutines (in order, bounded look-ahead) and streaming the others. It
// returns the CRC-32C of every output tensor's data.
func writeOutput(f *input, dec []Decision, h ggufx.Header, out *os.File, opt Options) ([]uint32, error) {
	bw := bufio.NewWriterSize(out, 4<<20)
	w, err := ggufx.NewWriter(bw, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	var total int64
	for _, t := range w.Tensors() {
		total += int64(t.Size)
	}
	// Futures in input order. Encodings run on at most Workers goroutines
	// and hold at most lookAheadBytes of encoded data waiting to be written
	// (a larger tensor runs alone), so memory stays about
	// lookAheadBytes + one tensor whatever the model.
	futures := make(chan chan piece, 1024)
	workers := semaphore.NewWeighted(int64(opt.Workers))
	budget := semaphore.NewWeighted(lookAheadBytes)
	go func() {
		defer close(futures)
		for i := range f.Tensors {
			ch := make(chan piece, 1)
			futures <- ch
			if dec[i].Layout != LayoutBitcos && dec[i].Layout != LayoutTQ2 {
				ch <- piece{idx: i}
				continue
			}
			cost := min(dec[i].BitcosBytes, lookAheadBytes)
			budget.Acquire(context.Background(), cost)
			workers.Acquire(context.Background(), 1)
			go func(i int) {
				defer workers.Release(1)
				st := encPool.Get().(*encState)
				pc := encodeTensor(f, i, &dec[i], st)
				f.release(i)
				pc.release = func() {
					encPool.Put(st)
					budget.Release(cost)
				}
				ch <- pc
			}(i)
		}
	}()
	table := crc32.MakeTable(crc32.Castagnoli)
	sums := make([]uint32, 0, len(h.Tensors))
	var done int64
	buf := make([]byte, 1<<20)
	var firstErr error
	for ch := range futures {
		pc := <-ch
		if firstErr != nil {
			if pc.release != nil {
				pc.release()
			}
			continue // drain
		}
		if pc.err != nil {
			firstErr = pc.err
			continue
		}
		if pc.bufs == nil {
			crc, n, err := copyTensor(w, f, pc.idx, buf, table, func(n int64) {
				if opt.Progress != nil {
					opt.Progress(done+n, total)
				}
			})
			f.release(pc.idx)
			if err != nil {
				firstErr = err
				continue
			}
			done += n
			sums = append(sums, crc)
		} else {
			sums = append(sums, pc.sums...)
			for _, b := range pc.bufs {
				if _, err := w.Write(b); err != nil {
					firstErr = err
					break
				}
				done += int64(len(b))
			}
			pc.release()
		}
		if opt.Progress != nil {
			opt.Progress(done, total)
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("%s: %w", opt.Output, err)
	}
	return sums, nil
}

// copyTensor writes tensor i of f to w unchanged, in chunks, and returns its
// CRC-32C and length.
func copyTensor(w io.Writer, f *input, i int, buf []byte, table *crc32.Table, progress func(int64)) (uint32, int64, error) {
	fail := func(err error) (uint32, int64, error) {
		return 0, 0, fmt.Errorf("%s: tensor %q: %w", f.Path, f.Tensors[i].Name, err)
	}
	var crc uint32
	var n int64
	if f.data != nil {
		data, err := f.tensor(i, nil)
		if err != nil {
			return fail(err)
		}
		for len(data) > 0 {
			c := data[:min(len(data), 8<<20)]
			crc = crc32.Update(crc, table, c)
			if _, err := w.Write(c); err != nil {
				return 0, 0, err
			}
			f.releaseRange(i, uint64(n), uint64(n)+uint64(len(c)))
			n += int64(len(c))
			data = data[len(c):]
			progress(n)
		}
		return crc, n, nil
	}
	sec := f.Section(i)
	for {
		m, rerr := sec.Read(buf)
		if m > 0 {
			crc = crc32.Update(crc, table, buf[:m])
			if _, err := w.Write(buf[:m]); err != nil {
				return 0, 0, err
			}
			n += int64(m)
			progress(n)
		}
		if rerr == io.EOF {
			return crc, n, nil
		}
		if rerr != nil {
			return fail(rerr)
		}
	}
}

// encodeTensor decodes tensor i again, encodes it as BITCOS and proves the
// encoding: decoding the bytes about to be written must give back the source
// codes and scale bits exactly.
func encodeTensor(f *input, i int, d *Decision, st *encState) piece {
	b := &st.b
	if err := loadSource(f, i, b, d); err != nil {
		return piece{err: err}
	}
	t := f.Tensors[i]
	if d.Layout == LayoutTQ2 {
		out := st.grow(format.TQ2_0.TensorBytes(b.p.K, b.p.Rows))
		if err := format.TQ2_0.Encode(&b.p, &b.s, out); err != nil {
			return piece{err: fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)}
		}
		return piece{idx: i, bufs: [][]byte{out}, sums: []uint32{crc32.Checksum(out, castagnoli)}}
	}
	st.nnz = format.RowNonZeros(&b.p, st.nnz)
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
	back := &st.back
	if err := format.DecodeBitcos(b.p.K, b.p.Rows, bitmap, signs, index, back); err != nil {
		return piece{err: fmt.Errorf("%s: tensor %q: internal error, BITCOS encoding does not decode: %w", f.Path, t.Name, err)}
	}
	if r, e, diff := format.FirstDiff(&b.p, back); diff {
		return piece{err: fmt.Errorf("%s: tensor %q: internal error, BITCOS encoding differs at row %d element %d", f.Path, t.Name, r, e)}
	}
	bufs := [][]byte{bitmap, signs, index, scales}
	sums := make([]uint32, len(bufs))
	for j, x := range bufs {
		sums[j] = crc32.Checksum(x, castagnoli)
	}
	return piece{idx: i, bufs: bufs, sums: sums}
}

// encState is one encoding's reusable memory: decoded planes, the planes
// decoded back for the proof, and the output buffer (in use until the piece
// is written).
type encState struct {
	b      tensorBuf
	back   format.Planes
	nnz    []int
	scales []byte
	out    []byte
}

var encPool = sync.Pool{New: func() any { return new(encState) }}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// grow returns st.out resized to n bytes (contents undefined).
func (st *encState) grow(n int) []byte {
	if cap(st.out) < n {
		st.out = make([]byte, n)
	}
	st.out = st.out[:n]
	return st.out
}

// checkWritten re-reads the written file: its header must parse to the
// planned tensors and every tensor's data must match the checksum taken when
// it was written. Tensors are read in large chunks (no mapping: the pages were
// just written, so they are in the page cache, and faulting them in costs more
// than copying them), by workers in parallel.
func checkWritten(path string, h ggufx.Header, sums []uint32, workers int) error {
	g, err := ggufx.Open(path)
	if err != nil {
		return err
	}
	defer g.Close()
	if len(g.Tensors) != len(h.Tensors) || len(g.KVs) != len(h.KVs) || len(sums) != len(h.Tensors) {
		return fmt.Errorf("header has %d tensors and %d KVs, want %d and %d", len(g.Tensors), len(g.KVs), len(h.Tensors), len(h.KVs))
	}
	for i, t := range g.Tensors {
		if t.Name != h.Tensors[i].Name || t.Type != h.Tensors[i].Type {
			return fmt.Errorf("tensor %d is %q %v, want %q %v", i, t.Name, t.Type, h.Tensors[i].Name, h.Tensors[i].Type)
		}
	}
	table := crc32.MakeTable(crc32.Castagnoli)
	errs := make([]error, len(g.Tensors))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 4<<20)
			for i := range jobs {
				t := g.Tensors[i]
				crc := crc32.New(table)
				if _, err := io.CopyBuffer(crc, g.Section(i), buf); err != nil {
					errs[i] = err
				} else if crc.Sum32() != sums[i] {
					errs[i] = fmt.Errorf("tensor %q: data read back differs from data written", t.Name)
				}
			}
		}()
	}
	for i := range g.Tensors {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
