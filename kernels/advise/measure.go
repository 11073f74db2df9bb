package advise

import (
	"math"
	"sync/atomic"
	"time"
)

// readBuffer is the streaming-read buffer: written once, so that every page
// is backed by its own memory (a never-written page reads as the shared
// zero page, from cache).
func readBuffer(bytes int64) []uint64 {
	b := make([]uint64, bytes/8)
	for i := range b {
		b[i] = uint64(i) * 0x9E3779B97F4A7C15
	}
	return b
}

// readSum reads b once, eight independent 64-bit words per 64-byte line:
// enough loads per cycle that the memory system, not the core, is the limit.
func readSum(b []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for len(b) >= 8 {
		s := b[:8:8]
		a0 ^= s[0]
		a1 ^= s[1]
		a2 ^= s[2]
		a3 ^= s[3]
		a4 ^= s[4]
		a5 ^= s[5]
		a6 ^= s[6]
		a7 ^= s[7]
		b = b[8:]
	}
	for _, x := range b {
		a0 ^= x
	}
	return a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7
}

// readPass reads buf once on nth threads, each its own contiguous share,
// and returns the wall time.
func readPass(buf []uint64, nth int) time.Duration {
	sink := make([]uint64, 8*nth) // a cache line per thread
	d := parallel(nth, func(ith int) {
		sink[8*ith] = readSum(buf[len(buf)*ith/nth : len(buf)*(ith+1)/nth])
	})
	keep ^= sink[0]
	return d
}

// keep holds a result of every read so that no read can be dropped.
var keep uint64

// repeats is how many timed repeats fit in slice when one takes one
// (measured by the warm-up), clamped to [lo, hi] and made odd (a median
// that is a measured value).
func repeats(slice, one time.Duration, lo, hi int) int {
	n := hi
	if one > 0 {
		n = int(min(float64(hi), math.Floor(float64(slice)/float64(one))))
	}
	n = max(lo, min(hi, n))
	if n%2 == 0 {
		n++
	}
	return n
}

// measureRead returns the aggregate read bandwidth (GB/s = bytes per ns) of
// buf on nth threads: one warm-up pass, then repeats within slice.
func measureRead(buf []uint64, nth int, slice time.Duration) Summary {
	one := readPass(buf, nth)
	n := repeats(slice, one, 3, 31)
	gbs := make([]float64, n)
	for i := range gbs {
		gbs[i] = float64(8*len(buf)) / float64(readPass(buf, nth).Nanoseconds())
	}
	return Summarize(gbs)
}

// cacheRows is the row count of the matrix the compute term is measured on:
// about 128 KiB of TQ2_0 (BITCOS less), which stays in L2, and at least 64
// distinct rows, too many branches for a predictor to learn by heart.
func cacheRows(k int) int { return max(64, (128<<10)/(k/256*66)) }

// measureCompute returns k's ns per 32 weights per thread on m (a matrix of
// cacheRows rows: its data and the column stay in cache), on nth threads
// at once (each its own loop: a core's speed can depend on how many run,
// through clocks or shared cores): a sample is passes GEMVs of m per
// thread, one cgo call each, sized to take about a millisecond on one
// thread; a warm-up, then repeats within slice.
func measureCompute(k kernel, m *matrix, y act, nth int, slice time.Duration) Summary {
	passes := 1
	outs := make([][]float32, nth)
	for i := range outs {
		outs[i] = make([]float32, m.Rows)
	}
	sample := func(nth int) time.Duration {
		return parallel(nth, func(ith int) {
			for range passes {
				k.run(m, 0, m.Rows, y.ptr, outs[ith])
			}
		})
	}
	for d := sample(1); d < time.Millisecond && passes < 1<<20; d = sample(1) {
		passes *= 2
	}
	one := sample(nth)
	n := repeats(slice, one, 5, 51)
	ns := make([]float64, n)
	w32 := float64(passes) * float64(m.Rows) * float64(m.K) / 32
	for i := range ns {
		ns[i] = float64(sample(nth).Nanoseconds()) / w32
	}
	return Summarize(ns)
}

// measureGEMV alternates passes over the stack of the kernels ks: ks[0]
// the native layout's, ks[1] the tq2_0 layout's, and ks[2], when there is
// one, the TQ2_0 file's (else ks[1] is also the file's, measured once).
// Even rounds run them in that order, odd ones the other way round (over
// two rounds a linear drift of the machine's speed then weighs the same on
// each), after one warm-up pass of each. Every ratio is of two passes of
// one round.
func measureGEMV(ks []kernel, stack []*matrix, acts map[int]act, out []float32, nth int, counters []atomic.Int64, slice time.Duration) Measured {
	pass := func(k kernel) time.Duration { return gemvPass(k, stack, acts, out, nth, counters) }
	var one time.Duration
	for _, k := range ks {
		one += pass(k)
	}
	n := repeats(slice, one, 3, 31)
	return fromRounds(alternated(n, len(ks), func(i int) float64 { return float64(pass(ks[i]).Nanoseconds()) / 1e6 }))
}

// alternated runs n rounds of the kernels 0..nk-1 (run(i) measures kernel
// i once), in order in even rounds and in reverse in odd ones (ABC CBA: a
// drift of the machine's speed falls on every kernel alike), and returns
// the figures as [kernel][round].
func alternated(n, nk int, run func(i int) float64) [][]float64 {
	out := make([][]float64, nk)
	for i := range out {
		out[i] = make([]float64, n)
	}
	for r := range n {
		for j := range nk {
			i := j
			if r%2 == 1 {
				i = nk - 1 - j
			}
			out[i][r] = run(i)
		}
	}
	return out
}

// fromRounds is the Measured of the pass times ms[kernel][round] (ms, kernels
// as in measureGEMV): each kernel's summary, and the per-round ratios with
// their summaries. The per-thread ns per 32 weights are left to the caller.
func fromRounds(ms [][]float64) Measured {
	file, n := len(ms)-1, len(ms[0])
	ratios, nat, tq := make([]float64, n), make([]float64, n), make([]float64, n)
	for r := range n {
		ratios[r] = ms[1][r] / ms[0][r]
		nat[r] = ms[file][r] / ms[0][r]
		tq[r] = ms[file][r] / ms[1][r]
	}
	return Measured{BitcosMs: Summarize(ms[0]), TQ2Ms: Summarize(ms[1]), FileMs: Summarize(ms[file]), Ratios: ratios,
		NativeVsFile: Summarize(nat), TQ2VsFile: Summarize(tq), Verdict: Decide(ratios)}
}
