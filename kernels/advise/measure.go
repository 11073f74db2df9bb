package advise

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/kernels"
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

// check runs k on the first rows of m and compares with the Go reference
// of its float order, bit for bit (a BITCOS kernel on m's BITCOS rows, a
// TQ2_0 kernel on the same values with the TQ2_0 blocks' scales), or, for
// the -O2 TQ2_0 build (orderNone), within a bound of the exact sums. It
// catches a kernel that ran on the wrong data; the kernels' own tests check
// their exactness.
func check(k kernel, m *matrix, y act) error {
	rows := min(m.Rows, 4)
	out := make([]float32, rows)
	k.run(m, 0, rows, y.ptr, out)
	for r := range rows {
		bm := m.bitmap[r*m.K/8 : (r+1)*m.K/8]
		sg := m.signs[m.off[r]:]
		var d16 []uint16
		d32 := m.d32
		if k.TQ2 {
			d16, d32 = m.tqd16[r*m.K/256:(r+1)*m.K/256], 0
		} else if m.d16 != nil {
			d16 = m.d16[r*m.K/256 : (r+1)*m.K/256]
		}
		var want float32
		switch k.order {
		case orderExact, orderNone:
			want = kernels.VecDotQ8K(bm, sg, d16, d32, y.y)
		case orderTQ2X86:
			want = kernels.VecDotQ8KTQ2Order(bm, sg, d16, d32, y.y)
		case orderTQ2ARM:
			want = kernels.VecDotQ8KTQ2ARMOrder(bm, sg, d16, d32, y.y)
		default:
			return fmt.Errorf("%s: unknown float order %d", k.Name, k.order)
		}
		if k.order == orderNone {
			bound := 0.0
			for b := range m.K / 256 {
				bound += math.Abs(float64(y.y[b].D)) * 256 * 127 * 0.016 // |scale| < 2^-6
			}
			if math.Abs(float64(out[r])-float64(want)) > 1e-5*bound {
				return fmt.Errorf("%s row %d of %v: %g, reference %g", k.Name, r, m.Shape, out[r], want)
			}
		} else if math.Float32bits(out[r]) != math.Float32bits(want) {
			return fmt.Errorf("%s row %d of %v: %g, reference %g (not bit-identical)", k.Name, r, m.Shape, out[r], want)
		}
	}
	return nil
}

// The C enum bitcos_order.
const (
	orderExact  = 0
	orderTQ2X86 = 1
	orderTQ2ARM = 2
	orderNone   = -1 // no Go reference of its order: checked within a bound
)

// measureGEMV alternates passes over the stack, BITCOS then TQ2_0 in even
// rounds and the other way round in odd ones (a drift of the machine's
// speed then weighs on both), after one warm-up pass of each.
func measureGEMV(native, tq2 kernel, stack []*matrix, acts map[int]act, out []float32, nth int, counters []atomic.Int64, slice time.Duration) Measured {
	pass := func(k kernel) time.Duration { return gemvPass(k, stack, acts, out, nth, counters) }
	one := pass(native) + pass(tq2)
	n := repeats(slice, one, 3, 31)
	bc, tq, ratios := make([]float64, n), make([]float64, n), make([]float64, n)
	for r := range n {
		var b, t time.Duration
		if r%2 == 0 {
			b, t = pass(native), pass(tq2)
		} else {
			t, b = pass(tq2), pass(native)
		}
		bc[r], tq[r] = float64(b.Nanoseconds())/1e6, float64(t.Nanoseconds())/1e6
		ratios[r] = tq[r] / bc[r]
	}
	return Measured{BitcosMs: Summarize(bc), TQ2Ms: Summarize(tq), Ratios: ratios, Verdict: Decide(ratios)}
}
