package advise

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// barrier is a spinning barrier for n threads, as ggml's threads wait for
// each other between two operations of a graph.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
}

func (b *barrier) wait() {
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.gen.Add(1)
		return
	}
	for i := 0; b.gen.Load() == g; i++ {
		if i > 1<<10 {
			runtime.Gosched() // more threads than cores: let the others run
		}
	}
}

// parallel runs work(ith) on n goroutines, each locked to its OS thread
// (cgo calls then run on n threads at once), and returns the wall time from
// before the first starts to after the last ends.
func parallel(n int, work func(ith int)) time.Duration {
	var wg sync.WaitGroup
	t0 := time.Now()
	for ith := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			work(ith)
		}()
	}
	wg.Wait()
	return time.Since(t0)
}

// chunks splits rows output rows among nth threads as ggml's
// ggml_compute_forward_mul_mat does for one activation column (nr1 = 1,
// hence chunk_size 64): chunks of 64 rows, or one chunk per thread when
// that gives fewer than 4 chunks per thread; thread ith takes chunk ith
// first, then the next unclaimed one from a shared counter that starts at
// nth. It returns the rows per chunk and the number of chunks.
func chunks(rows, nth int) (size, count int) {
	const chunkSize = 64
	count = (rows + chunkSize - 1) / chunkSize
	if count < nth*4 {
		count = nth
	}
	return (rows + count - 1) / count, count
}

// gemvPass multiplies every matrix of stack by its column in turn with
// kernel k on nth threads (splitPass) and returns the wall time.
func gemvPass(k kernel, stack []*matrix, ys map[int]act, out []float32, nth int, counters []atomic.Int64) time.Duration {
	return splitPass(len(stack), func(i int) int { return stack[i].Rows }, func(i, r0, r1 int) {
		m := stack[i]
		k.run(m, r0, r1, ys[m.K].ptr, out)
	}, nth, counters)
}

// splitPass runs n matrices of rows(i) rows in turn on nth threads, ggml's
// row split (chunks) with run(i, r0, r1) per chunk and a barrier after each
// matrix as after each node of a ggml graph, and returns the wall time.
// counters: one per matrix, reused.
func splitPass(n int, rows func(i int) int, run func(i, r0, r1 int), nth int, counters []atomic.Int64) time.Duration {
	for i := range n {
		counters[i].Store(int64(nth))
	}
	bar := &barrier{n: int32(nth)}
	return parallel(nth, func(ith int) {
		for i := range n {
			size, count := chunks(rows(i), nth)
			for c := ith; c < count; c = int(counters[i].Add(1) - 1) {
				if r0, r1 := c*size, min((c+1)*size, rows(i)); r0 < r1 {
					run(i, r0, r1)
				}
			}
			bar.wait()
		}
	})
}
