package advise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// Q2_0 sources: weights with fp16 scales per 64 weights. The kernels above
// take one fp16 per 256 or one f32; the series runs these as Q2_0 on the CPU
// (patches core 0002 and 0013): in the native layout each product decodes
// every row into its source's Q2_0 blocks and dots them with ggml's Q2_0
// kernel on Q8_0 activations; in the q2_0 layout (CPU_BITCOS) the blocks are
// made once at load and the same kernel runs on them, as for the Q2_0 file.
// The rule picks the q2_0 layout on every CPU (native only when forced);
// measureQ2_0 times both on the model's shapes, so the choice is measured
// too.
const (
	q2RuleLayout = LayoutTQ2 // the load-time layout ("tq2_0" names every layout made at load: here Q2_0 blocks)
	q2RuleWhy    = "Q2_0 blocks made at load on every CPU (CPU_BITCOS, patch 0013): the native layout decodes each row into the same blocks for every product"
)

// Q2_0Result is the measurement of weights with scales per 64 (a Q2_0
// source's), when the model has them.
type Q2_0Result struct {
	Kernel  string        `json:"kernel"`   // the dot product both layouts run
	Rule    string        `json:"rule"`     // the layout the series picks: LayoutTQ2 (Q2_0 blocks made at load)
	RuleWhy string        `json:"rule_why"` // and why
	Bytes32 Q2_0Bytes     `json:"bytes_per_32"`
	Threads []Q2_0Threads `json:"threads"`
}

// Q2_0Bytes: what a GEMV reads per 32 weights of the stack in each layout.
type Q2_0Bytes struct {
	Native float64 `json:"native"` // bitmap, signs, row index, fp16 scales per 64
	Blocks float64 `json:"q2_0"`   // Q2_0 blocks (18 bytes per 64 weights)
}

// Q2_0Threads is the GEMV over the stack at one thread count, the two
// layouts alternated round by round.
type Q2_0Threads struct {
	Threads  int     `json:"threads"`
	NativeMs Summary `json:"native_ms"` // one pass over the stack
	BlocksMs Summary `json:"q2_0_ms"`
	// Verdict: by the rounds' ratios of the blocks' time over the native
	// layout's (LayoutTQ2 wins below 1).
	Verdict Verdict `json:"verdict"`
	Agrees  bool    `json:"agrees"` // the rule's layout is the measured winner
}

// q2Matrix is one matrix with scales per 64 in both layouts, the same values.
type q2Matrix struct {
	Shape
	bitmap, signs []byte
	off           []uint32
	d64           []uint16 // K/64 per row
	q2            []byte   // Q2_0 blocks, row after row
}

func (m *q2Matrix) bitcosBytes() int {
	return len(m.bitmap) + len(m.signs) + 4*len(m.off) + 2*len(m.d64)
}

// genQ2Matrix encodes fresh planes of shape s at zero density z with the
// project's encoders (format.EncodeBitcos, format.Q2_0.Encode).
func genQ2Matrix(rng *rand.Rand, s Shape, z float64) (*q2Matrix, error) {
	p := genPlanes(rng, s, z)
	off, err := format.BitcosRowOffsets(format.RowNonZeros(p, nil))
	if err != nil {
		return nil, err
	}
	m := &q2Matrix{Shape: s, off: off, d64: make([]uint16, s.K/64*s.Rows)}
	m.bitmap = make([]byte, format.BitcosBitmapBytes(s.K, s.Rows))
	m.signs = make([]byte, int(off[s.Rows])+format.SignTailBytes)
	if err := format.EncodeBitcos(p, off, m.bitmap, m.signs, make([]byte, 4*(s.Rows+1))); err != nil {
		return nil, err
	}
	for i := range m.d64 {
		m.d64[i] = 0x2000 + uint16(rng.IntN(512)) // fp16 in [2^-7, 2^-6), like trained scales
	}
	m.q2 = make([]byte, format.Q2_0.TensorBytes(s.K, s.Rows))
	if err := format.Q2_0.Encode(p, &format.Scales{Group: 64, F16: m.d64}, m.q2); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *q2Matrix) clone() *q2Matrix {
	return &q2Matrix{Shape: m.Shape, bitmap: append([]byte(nil), m.bitmap...), signs: append([]byte(nil), m.signs...),
		off: append([]uint32(nil), m.off...), d64: append([]uint16(nil), m.d64...), q2: append([]byte(nil), m.q2...)}
}

// q2GEMV runs one layout's product over rows [r0, r1) of m with the Q8_0
// column y.
type q2GEMV func(m *q2Matrix, r0, r1 int, y unsafe.Pointer, out []float32)

func q2Native(m *q2Matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
	ckern.BitcosQ2_0GEMV(m.K, r1-r0, m.bitmap[r0*m.K/8:], m.signs, m.off[r0:], m.d64[r0*m.K/64:], y, out[r0:])
}

func q2Blocks(m *q2Matrix, r0, r1 int, y unsafe.Pointer, out []float32) {
	ckern.Q2_0GEMV(m.K, r1-r0, m.q2[r0*m.K/64*18:], y, out[r0:])
}

// q2Pass is gemvPass for q2Matrix stacks (splitPass).
func q2Pass(run q2GEMV, stack []*q2Matrix, ys map[int]unsafe.Pointer, out []float32, nth int, counters []atomic.Int64) time.Duration {
	return splitPass(len(stack), func(i int) int { return stack[i].Rows }, func(i, r0, r1 int) {
		m := stack[i]
		run(m, r0, r1, ys[m.K], out)
	}, nth, counters)
}

// measureQ2_0 generates the shapes of s.o with scales per 64, checks that
// the two layouts give the same bits on them, and times both over a stack of
// s.o.StackBytes (of Q2_0 blocks) at each thread count, slice each.
func (s *session) measureQ2_0(slice time.Duration) (*Q2_0Result, error) {
	rng := rand.New(rand.NewPCG(s.o.Seed, 64))
	res := &Q2_0Result{Kernel: "Q2_0 x Q8_0 (kernels/c/bench/q2_0.c: ggml's generic float steps, scalar C as x86 runs it at the pin)",
		Rule: q2RuleLayout, RuleWhy: q2RuleWhy}
	var base []*q2Matrix
	ys := map[int]unsafe.Pointer{}
	var layer int64
	for _, sh := range s.o.Shapes {
		m, err := genQ2Matrix(rng, sh, s.o.Z)
		if err != nil {
			return nil, err
		}
		base, layer = append(base, m), layer+int64(len(m.q2))
		if _, ok := ys[sh.K]; !ok {
			x := make([]float32, sh.K)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			y := make([]kernels.BlockQ8_0, sh.K/32)
			kernels.QuantizeQ8_0(x, y)
			ys[sh.K] = unsafe.Pointer(&y[0]) // a pointer the collector follows: y lives as long as ys
		}
		a, b := make([]float32, sh.Rows), make([]float32, sh.Rows)
		q2Native(m, 0, sh.Rows, ys[sh.K], a)
		q2Blocks(m, 0, sh.Rows, ys[sh.K], b)
		for r := range a {
			if math.Float32bits(a[r]) != math.Float32bits(b[r]) {
				return nil, fmt.Errorf("shape %v row %d: the native layout's product %v and the Q2_0 blocks' %v differ (a bug)", sh, r, a[r], b[r])
			}
		}
	}
	layers := int(max(1, (s.o.StackBytes+layer-1)/layer))
	var stack []*q2Matrix
	var weights, bitcosBytes, q2Bytes int64
	maxRows := 0
	for l := range layers {
		for _, m := range base {
			if l > 0 {
				m = m.clone()
			}
			stack = append(stack, m)
			maxRows = max(maxRows, m.Rows)
			weights += int64(m.K * m.Rows)
			bitcosBytes += int64(m.bitcosBytes())
			q2Bytes += int64(len(m.q2))
		}
	}
	res.Bytes32 = Q2_0Bytes{Native: float64(bitcosBytes) * 32 / float64(weights), Blocks: float64(q2Bytes) * 32 / float64(weights)}
	runtime.GC()
	out := make([]float32, maxRows)
	counters := make([]atomic.Int64, len(stack))
	for _, t := range s.o.Threads {
		s.progress("Q2_0 sources: GEMV at %d thread(s)", t)
		native := func() time.Duration { return q2Pass(q2Native, stack, ys, out, t, counters) }
		blocks := func() time.Duration { return q2Pass(q2Blocks, stack, ys, out, t, counters) }
		n := repeats(slice, native()+blocks(), 3, 31)
		nat, blk, ratios := make([]float64, n), make([]float64, n), make([]float64, n)
		for r := range n {
			if r%2 == 0 {
				nat[r], blk[r] = ms(native()), ms(blocks())
			} else {
				blk[r], nat[r] = ms(blocks()), ms(native())
			}
			ratios[r] = blk[r] / nat[r]
		}
		tr := Q2_0Threads{Threads: t, NativeMs: Summarize(nat), BlocksMs: Summarize(blk), Verdict: Decide(ratios)}
		tr.Agrees = tr.Verdict.Winner == res.Rule
		res.Threads = append(res.Threads, tr)
	}
	return res, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
