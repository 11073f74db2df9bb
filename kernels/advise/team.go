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
// kernel k on nth threads (ggml's row split, a barrier after each matrix as
// after each node of a ggml graph) and returns the wall time. counters:
// one per matrix, reused.
func gemvPass(k kernel, stack []*matrix, ys map[int]act, out []float32, nth int, counters []atomic.Int64) time.Duration {
	for i := range stack {
		counters[i].Store(int64(nth))
	}
	bar := &barrier{n: int32(nth)}
	return parallel(nth, func(ith int) {
		for i, m := range stack {
			size, count := chunks(m.Rows, nth)
			y := ys[m.K].ptr
			for c := ith; c < count; c = int(counters[i].Add(1) - 1) {
				r0 := c * size
				r1 := min(r0+size, m.Rows)
				if r0 < r1 {
					k.run(m, r0, r1, y, out)
				}
			}
			bar.wait()
		}
	})
}
