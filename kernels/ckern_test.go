package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
	"github.com/x448/float16"
)

// Tests of the C kernels (kernels/c) through cgo. Parity claimed: the
// exact-order BITCOS kernel (generic, the scalar reference of that order)
// returns the same float32 bits as VecDotQ8K (the generic TQ2_0 formula
// without FMA contraction), and so do the generic and exact-AVX2 TQ2_0
// kernels on the same ternary values and scales encoded as TQ2_0. ggml's
// AVX2 TQ2_0 order (TQ2AVX2) is only close. The kernels of TQ2_0's orders
// have their own tests (tq2order_test.go, tq2armorder_test.go).

type cVariant struct {
	name string
	run  func(m *testRows, y []BlockQ8K, out []float32)
	why  string // non-empty: cannot run here, and why
	lost bool   // compiled as its fallback on a CPU that has its ISA (simd)
}

func yPtr(y []BlockQ8K) unsafe.Pointer { return unsafe.Pointer(&y[0]) }

// cVariants lists every BITCOS kernel of the exact order: the scalar
// generic one (the exact-order SIMD kernels were retired: no default ran
// them).
func cVariants() []cVariant {
	gemv := func(v ckern.Variant) func(m *testRows, y []BlockQ8K, out []float32) {
		return func(m *testRows, y []BlockQ8K, out []float32) {
			ckern.GEMV(v, m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}
	}
	return []cVariant{
		{name: "generic", run: gemv(ckern.Generic)},
	}
}

func needCgo(t testing.TB) {
	if !ckern.Available {
		t.Skip("built without cgo: the C kernels are not compiled")
	}
}

func TestCKernelsMatchReference(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(5, 6))
	vs := cVariants()
	notRun(t, vs)
	checked := map[string]int{}
	for _, k := range testKs {
		for _, perTensor := range []bool{false, true} {
			for rep := range 3 {
				// rows at real zero densities, then the edges (dense,
				// all-zero, 90% zeros), each with fresh weights
				zs := []float64{}
				for range 6 {
					zs = append(zs, 0.3+0.22*rng.Float64())
				}
				zs = append(zs, testZs...)
				m := makeRows(t, rng, k, len(zs), zs, perTensor)
				y := randomActivations(rng, k, rep == 2)
				want := make([]float32, m.rows)
				for r := range m.rows {
					want[r] = VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
				}
				for _, v := range vs {
					if v.why != "" {
						continue
					}
					got := make([]float32, m.rows)
					v.run(m, y, got)
					for r := range m.rows {
						if math.Float32bits(got[r]) != math.Float32bits(want[r]) {
							t.Fatalf("%s k=%d perTensor=%v row %d (z=%.2f): got %v (%#08x), want %v (%#08x)",
								v.name, k, perTensor, r, zs[r], got[r], math.Float32bits(got[r]), want[r], math.Float32bits(want[r]))
						}
					}
					checked[v.name] += m.rows
				}
			}
		}
	}
	// many rows at zero densities spread over [0, 1]: every bitmap byte
	// value, every sign offset, many word populations
	zs := make([]float64, 256)
	for i := range zs {
		zs[i] = rng.Float64()
	}
	m := makeRows(t, rng, 2560, len(zs), zs, false)
	y := randomActivations(rng, 2560, true)
	for _, v := range vs {
		if v.why != "" {
			continue
		}
		got := make([]float32, m.rows)
		v.run(m, y, got)
		for r := range m.rows {
			want := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), 0, y)
			if math.Float32bits(got[r]) != math.Float32bits(want) {
				t.Fatalf("%s wide row %d (z=%.2f): got %v, want %v", v.name, r, zs[r], got[r], want)
			}
		}
		checked[v.name] += m.rows
	}
	t.Logf("rows checked bit-exact per variant: %v", checked)
}

// Every bitmap byte value and every sign pattern of 64-bit words with many
// set bits (c > 56 takes the kernels' ninth-byte path) at every bit offset.
func TestCKernelsDenseWordsAllOffsets(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(7, 8))
	const k = 1024
	p := &format.Planes{}
	rows := 64
	p.Reset(k, rows)
	for r := range rows {
		// row r: r leading non-zeros shift the sign offset of every later
		// word; then words of 57..64 non-zeros and every byte value
		for j := range r {
			p.Set(r, j, 1)
		}
		for j := 256; j < 768; j++ {
			if rng.IntN(64) < 60 {
				p.Set(r, j, int8(2*rng.IntN(2)-1))
			}
		}
		for j := 768; j < k; j++ {
			byteVal := (r*4 + (j-768)/8) % 256
			if byteVal>>(j%8)&1 != 0 {
				p.Set(r, j, int8(2*rng.IntN(2)-1))
			}
		}
	}
	bitmap, signs, off := encodeRows(t, p)
	m := &testRows{k: k, rows: rows, p: p, bitmap: bitmap, signs: signs, off: off, d16: randomScales(rng, rows*k/QK_K)}
	for i := range m.d16 {
		m.d16[i] = 0x3c00 + uint16(i%7) // no zero scales here
	}
	y := randomActivations(rng, k, true)
	for _, v := range cVariants() {
		if v.why != "" {
			continue
		}
		got := make([]float32, rows)
		v.run(m, y, got)
		for r := range rows {
			want := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), 0, y)
			if math.Float32bits(got[r]) != math.Float32bits(want) {
				t.Fatalf("%s row %d: got %v, want %v", v.name, r, got[r], want)
			}
		}
	}
}

// The generic TQ2_0 kernel and the exact AVX2 one give the same bits as
// BITCOS on the same ternary values and scales; ggml's AVX2 order is close.
func TestTQ2ParityWithBitcos(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(9, 10))
	yardstick := cVariant{name: "tq2_0 avx2 yardsticks"}.simd(ckern.TQ2CompiledAVX2(), cpuid.CPU.Supports(cpuid.AVX2, cpuid.F16C),
		"generic TQ2_0 kernel", "AVX2/F16C")
	notRun(t, []cVariant{yardstick})
	canAVX2 := yardstick.why == ""
	for _, k := range testKs {
		m := makeRows(t, rng, k, 20, testZs, false)
		tq := make([]byte, format.TQ2_0.TensorBytes(k, m.rows))
		if err := format.TQ2_0.Encode(m.p, &format.Scales{Group: QK_K, F16: m.d16}, tq); err != nil {
			t.Fatal(err)
		}
		y := randomActivations(rng, k, false)
		want := make([]float32, m.rows)
		ckern.GEMV(ckern.Generic, k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, 0, yPtr(y), want)
		for _, tv := range []struct {
			v     ckern.Variant
			exact bool
		}{{ckern.TQ2Generic, true}, {ckern.TQ2AVX2Exact, true}, {ckern.TQ2AVX2, false}} {
			if tv.v != ckern.TQ2Generic && !canAVX2 {
				continue
			}
			got := make([]float32, m.rows)
			ckern.TQ2GEMV(tv.v, k, m.rows, false, tq, yPtr(y), got)
			for r := range m.rows {
				if tv.exact {
					if math.Float32bits(got[r]) != math.Float32bits(want[r]) {
						t.Fatalf("TQ2_0 variant %d k=%d row %d: %v, BITCOS %v", tv.v, k, r, got[r], want[r])
					}
					continue
				}
				// lane order differs: bound by the magnitudes summed
				var mag float64
				for b := range k / QK_K {
					var s float64
					for j := range QK_K {
						s += math.Abs(float64(y[b].Qs[j]))
					}
					mag += math.Abs(float64(y[b].D)*float64(float16.Frombits(m.d16[r*k/QK_K+b]).Float32())) * s
				}
				if math.Abs(float64(got[r])-float64(want[r])) > 1e-6*mag {
					t.Fatalf("TQ2_0 ggml-order AVX2 k=%d row %d: %v, BITCOS %v", k, r, got[r], want[r])
				}
			}
		}
	}
}
