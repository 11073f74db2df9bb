package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
)

// tq2BlockKernel is a build of c/bitcos_tq2_0_vnni.c (the one-column kernel
// of weights converted to TQ2_0 blocks at load): v.why says why it cannot run
// here ("" when it can), v.lost that the VNNI build compiled as the scalar one
// on a CPU that has VNNI, under GCC (notRun fails the test for it).
type tq2BlockKernel struct {
	v   cVariant
	run func(k int, x []byte, y []BlockQ8K) float32
}

func tq2BlockKernels() []tq2BlockKernel {
	scalar := cVariant{name: "tq2_0 scalar"}
	if !ckern.TQ2_0DotScalarCompiled() {
		scalar.why, scalar.lost = "the baseline build took the VNNI path", true
	}
	return []tq2BlockKernel{
		{scalar, func(k int, x []byte, y []BlockQ8K) float32 { return ckern.TQ2_0Dot(k, x, yPtr(y)) }},
		{cVariant{name: "tq2_0 avx512_vnni"}.simd(ckern512.CompiledTQ2_0VNNI(), ckern512.CPUHasTQ2_0VNNI(), "scalar build", "AVX-512 F/BW/VL/VNNI, F16C or FMA"),
			func(k int, x []byte, y []BlockQ8K) float32 { return ckern512.TQ2_0DotVNNI(k, x, yPtr(y)) }},
	}
}

// TestTQ2_0BlocksMatchReference: the one-column kernel of converted weights,
// run on the TQ2_0 blocks the format's encoder makes from a BITCOS row's
// values and fp16 scales, returns the float32 bits of VecDotQ8KTQ2Order
// (ggml's x86 TQ2_0 float order) on the BITCOS row, for every test shape and
// zero density, quantized and raw activations (the VNNI build also as the
// GEMV of every row in one call, ckern512.TQ2_0GEMVVNNI); and on blocks of arbitrary
// bytes (code 3 included, which no converted weight holds but ggml's kernel
// multiplies as 3) both builds agree bit for bit.
func TestTQ2_0BlocksMatchReference(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(20, 66))
	kerns := tq2BlockKernels()
	notRun(t, []cVariant{kerns[0].v, kerns[1].v})
	checked := map[string]int{}
	check := func(what string, m *testRows, y []BlockQ8K) {
		blocks := make([]byte, m.rows*m.k/QK_K*66)
		if err := format.TQ2_0.Encode(m.p, &format.Scales{Group: QK_K, F16: m.d16}, blocks); err != nil {
			t.Fatal(err)
		}
		row := m.k / QK_K * 66
		// the VNNI build's GEMV (one cgo call for every row, as advise runs
		// it) gives each row what the one-row call gives
		var gemv []float32
		if kerns[1].v.why == "" {
			gemv = make([]float32, m.rows)
			ckern512.TQ2_0GEMVVNNI(m.k, m.rows, blocks, yPtr(y), gemv)
		}
		for r := range m.rows {
			want := VecDotQ8KTQ2Order(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
			if gemv != nil {
				if math.Float32bits(gemv[r]) != math.Float32bits(want) {
					t.Fatalf("TQ2_0GEMVVNNI %s row %d: %v (%#08x), Go TQ2_0-order reference %v (%#08x)", what, r,
						gemv[r], math.Float32bits(gemv[r]), want, math.Float32bits(want))
				}
				checked["tq2_0 avx512_vnni GEMV"]++
			}
			for _, kr := range kerns {
				if kr.v.why != "" {
					continue
				}
				got := kr.run(m.k, blocks[r*row:(r+1)*row], y)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s %s row %d: %v (%#08x), Go TQ2_0-order reference %v (%#08x)", kr.v.name, what, r,
						got, math.Float32bits(got), want, math.Float32bits(want))
				}
				checked[kr.v.name]++
			}
		}
	}
	for _, k := range testKs {
		m := makeRows(t, rng, k, len(testZs), testZs, false)
		for _, raw := range []bool{false, true} {
			check(fmtShape(k, false, raw), m, randomActivations(rng, k, raw))
		}
	}
	zs := make([]float64, 256)
	for i := range zs {
		zs[i] = rng.Float64()
	}
	check("wide", makeRows(t, rng, 2560, len(zs), zs, false), randomActivations(rng, 2560, true))

	if kerns[0].v.why == "" && kerns[1].v.why == "" {
		for i := range 64 {
			k := 256 * (1 + i%27)
			x := make([]byte, k/QK_K*66)
			for j := range x {
				x[j] = byte(rng.Uint32())
			}
			for b := range k / QK_K { // finite scales: a NaN's bits need not agree
				x[b*66+64], x[b*66+65] = byte(rng.Uint32()), byte(rng.IntN(0x7c))
			}
			y := randomActivations(rng, k, i%2 == 0)
			a, b := kerns[0].run(k, x, y), kerns[1].run(k, x, y)
			if math.Float32bits(a) != math.Float32bits(b) {
				t.Fatalf("arbitrary bytes, k=%d: scalar %v (%#08x), VNNI %v (%#08x)", k, a, math.Float32bits(a), b, math.Float32bits(b))
			}
			checked["arbitrary bytes"]++
		}
	}
	t.Logf("outputs checked bit-exact: %v", checked)
}
