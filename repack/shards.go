package repack

import (
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
)

// Sharded output is written once, each shard directly. Which tensors a
// shard holds depends on the output tensors' sizes, so the decisions come
// first: a planning pass completes every candidate's decision without
// encoding it (analyzeCandidate: stats' exact prediction; a count of the
// non-zero codes for TQ2_0, Q2_0 and I2_S, a decode for TQ1_0, the
// ternarization itself for a float master), which fixes the output header
// as the one-file repack would write it (headerFor, fitHeader: same KVs,
// same header pad). The cost is one more read of the candidates, where
// writing the one file and copying it into shards would write everything
// twice.
//
// That list of tensors is cut as llama-gguf-split cuts a file
// (shardStarts), and the data pass then encodes as for one file, moving to
// the next shard's file at each cut, inside a BITCOS family too when the
// cut falls there, and checking every tensor against the plan before
// writing a byte of it (dataOut.check). The headers go in last
// (ggufx.WriteHeaderAt), every shard is read back and checked, and the set
// is committed together (atomicfile.CommitAll): until then the shards are
// unnamed, and an error or an interrupt removes them all. The steps are
// job.writeShards (pipeline.go); the pieces it needs are here.

// active reports whether o asks for shards.
func (o SplitOptions) active() bool { return o.MaxBytes > 0 || o.MaxTensors > 0 }

// afterPlan, if set, sees the planned decisions before anything is
// written (tests make the plan disagree with the data pass).
var afterPlan func(plan []Decision)

// syncAndCheck writes the shards out to disk while reading back their
// headers (checkWritten); both must finish before the set is committed.
func syncAndCheck(outs []*atomicfile.File, headers []ggufx.Header, start []uint64, spans [][]ggufx.Span) error {
	checked := make(chan error, 1)
	go func() {
		for s, out := range outs {
			if err := checkWritten(out.ReadPath(), headers[s], spans[s], dataEnd(start[s], spans[s], ggufx.DefaultAlignment)); err != nil {
				checked <- fmt.Errorf("%s: the written shard did not read back intact: %w", out.Target(), err)
				return
			}
		}
		checked <- nil
	}()
	var syncErr error
	for _, out := range outs {
		if err := out.Sync(); err != nil && syncErr == nil {
			syncErr = fmt.Errorf("%s: %w", out.Target(), err)
		}
	}
	if checkErr := <-checked; checkErr != nil {
		return checkErr
	}
	return syncErr
}

// dataEnd is the size of a file whose data section starts at start and
// holds spans, aligned to align.
func dataEnd(start uint64, spans []ggufx.Span, align uint64) int64 {
	if len(spans) == 0 {
		return int64(start)
	}
	last := spans[len(spans)-1]
	return int64(start + pad(last.Offset+last.Size, align))
}

// shardStarts cuts the output tensors ts into shards exactly as
// llama-gguf-split's split_strategy does, and returns the index of each
// shard's first tensor: a new shard every MaxTensors tensors, or before a
// tensor that would take a shard's data (padded tensor sizes only) past
// MaxBytes. A model without tensors is one shard.
func shardStarts(ts []ggufx.TensorInfo, opt SplitOptions) ([]int, error) {
	starts := []int{0}
	var size int64
	for i, t := range ts {
		n, err := ggufx.TensorBytes(t.Type, t.Dims)
		if err != nil {
			return nil, err
		}
		nb := int64(pad(n, ggufx.DefaultAlignment))
		var cut bool
		if opt.MaxTensors > 0 {
			cut = i > 0 && i%opt.MaxTensors == 0
		} else {
			cut = size+nb > opt.MaxBytes
		}
		if !cut {
			size += nb
			continue
		}
		if i == 0 {
			return nil, fmt.Errorf("tensor %q alone is larger than the split size (%d bytes), and llama-gguf-split does not allow an empty first shard", t.Name, opt.MaxBytes)
		}
		starts = append(starts, i)
		size = nb
	}
	return starts, nil
}

// shardHeaders lays h out as shards starting at starts: the first holds
// every KV of h, each ends with split.no, split.tensors.count and
// split.count (split.go), in GGUF version 3 with the fixed alignment.
func shardHeaders(h ggufx.Header, starts []int) []ggufx.Header {
	n := len(h.Tensors)
	hs := make([]ggufx.Header, len(starts))
	for s, first := range starts {
		end := n
		if s+1 < len(starts) {
			end = starts[s+1]
		}
		var kvs []ggufx.KV
		if s == 0 {
			kvs = append(kvs, h.KVs...)
		}
		kvs = append(kvs,
			ggufx.KVUint16(ggufsplit.KeyNo, uint16(s)),
			ggufx.KVInt32(ggufsplit.KeyTensors, int32(n)),
			ggufx.KVUint16(ggufsplit.KeyCount, uint16(len(starts))),
		)
		hs[s] = ggufx.Header{Version: 3, Alignment: ggufx.DefaultAlignment, KVs: kvs, Tensors: h.Tensors[first:end]}
	}
	return hs
}

// planDecisions completes the decisions dec of the candidates (but heads,
// decided from the header) as the data pass will make them, on workers
// goroutines, reading each tensor once and encoding nothing.
func planDecisions(f *input, dec []Decision, cand []bool, workers int, prog *jobProgress) error {
	type result struct {
		i   int
		err error
	}
	jobs, results, stop := make(chan int), make(chan result), make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var b tensorBuf
			for i := range jobs {
				results <- result{i, planOne(f, i, &dec[i], &b)}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range f.Tensors {
			if !cand[i] || dec[i].head != nil {
				continue
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var done int64
	var firstErr error
	for r := range results {
		if r.err != nil && firstErr == nil {
			firstErr = r.err
			close(stop)
		}
		done += int64(f.Tensors[r.i].Size)
		prog.report(min(done, prog.plan))
	}
	return firstErr
}

// planOne decides candidate i (analyzeCandidate); a panic is an
// InternalError, as in the data pass.
func planOne(f *input, i int, d *Decision, b *tensorBuf) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{File: f.Path, Tensor: f.Tensors[i].Name, Value: r, Stack: debug.Stack()}
		}
	}()
	defer f.release(i)
	return analyzeCandidate(f, i, d, b)
}
