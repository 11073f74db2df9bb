package advise

import (
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestChunks: ggml_compute_forward_mul_mat's split for one column: chunks
// of 64 rows, unless that gives fewer than 4 per thread, then one per thread.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		rows, nth   int
		size, count int
	}{
		{6912, 1, 64, 108}, {6912, 2, 64, 108}, {6912, 27, 64, 108}, {6912, 28, 247, 28},
		{2560, 2, 64, 40}, {2560, 10, 64, 40}, {2560, 11, 233, 11},
		{64, 1, 64, 1}, {100, 1, 100, 1}, {256, 1, 64, 4}, {255, 1, 64, 4}, {300, 2, 150, 2}, {3, 4, 1, 4},
	} {
		size, count := chunks(tc.rows, tc.nth)
		if size != tc.size || count != tc.count {
			t.Errorf("chunks(%d, %d) = %d x %d, want %d x %d", tc.rows, tc.nth, size, count, tc.size, tc.count)
		}
		if size*count < tc.rows || size*(count-1) >= tc.rows && tc.rows >= count {
			t.Errorf("chunks(%d, %d) = %d x %d does not cover the rows once", tc.rows, tc.nth, size, count)
		}
	}
}

// TestGEMVPassCoversEveryRowOnce: at any thread count every row of every
// matrix of the stack is computed exactly once per pass, matrix after
// matrix (the barrier: no thread starts a matrix before all finished the
// one before).
func TestGEMVPassCoversEveryRowOnce(t *testing.T) {
	stack := []*matrix{{Shape: Shape{256, 6912}}, {Shape: Shape{512, 300}}, {Shape: Shape{256, 3}}, {Shape: Shape{768, 2560}}}
	hits := make([][]atomic.Int32, len(stack))
	index := map[*matrix]int{}
	for i, m := range stack {
		hits[i] = make([]atomic.Int32, m.Rows)
		index[m] = i
	}
	var done atomic.Int64 // rows finished in this pass
	before := []int64{0}
	for _, m := range stack {
		before = append(before, before[len(before)-1]+int64(m.Rows))
	}
	var order atomic.Bool // a chunk started before the previous matrix was done
	k := kernel{Name: "fake", run: func(m *matrix, r0, r1 int, _ unsafe.Pointer, out []float32) {
		i := index[m]
		if len(out) < r1 {
			t.Error("short output")
		}
		if done.Load() < before[i] {
			order.Store(true)
		}
		for r := r0; r < r1; r++ {
			hits[i][r].Add(1)
		}
		done.Add(int64(r1 - r0))
	}}
	counters := make([]atomic.Int64, len(stack))
	out := make([]float32, 6912)
	for _, nth := range []int{1, 2, 3, 7, 64} {
		for pass := 1; pass <= 2; pass++ {
			done.Store(0)
			gemvPass(k, stack, map[int]act{}, out, nth, counters)
			for i := range hits {
				for r := range hits[i] {
					if n := hits[i][r].Swap(0); n != 1 {
						t.Fatalf("%d threads, pass %d: row %d of matrix %d computed %d times", nth, pass, r, i, n)
					}
				}
			}
			if order.Load() {
				t.Fatalf("%d threads: a matrix started before the one before it was done", nth)
			}
		}
	}
}

// TestReadSum: every word is read (an xor of all of them), whatever the
// length.
func TestReadSum(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 64, 1001} {
		b := make([]uint64, n)
		var want uint64
		for i := range b {
			b[i] = uint64(i+1) * 0x9E3779B97F4A7C15
			want ^= b[i]
		}
		if got := readSum(b); got != want {
			t.Errorf("readSum of %d words = %#x, want %#x", n, got, want)
		}
	}
	if buf := readBuffer(1 << 12); len(buf) != 512 || buf[1] == 0 {
		t.Errorf("readBuffer: %d words, word 1 = %#x", len(buf), buf[1])
	}
}
