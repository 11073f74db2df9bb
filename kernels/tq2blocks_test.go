package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// tq2BlockKernel is a build of a one-column kernel of converted weights
// (c/bitcos_tq2_0_vnni.c, c/bitcos_tq2_0_avx2.c, the scalar reference of
// c/bitcos_layout.c in the x86 order), on TQ2_0 blocks or, f32, on f32
// blocks: v.why says why it cannot run here ("" when it can), v.lost that
// a SIMD build compiled as the scalar one on a CPU that has its ISA, under
// GCC (notRun fails the test for it).
type tq2BlockKernel struct {
	v   cVariant
	run func(k int, x []byte, f32 bool, y []BlockQ8K) float32
}

func tq2BlockKernels() []tq2BlockKernel {
	scalar := cVariant{name: "tq2_0 scalar"}
	if !ckern.TQ2_0DotScalarCompiled() {
		scalar.why, scalar.lost = "the baseline build took the VNNI path", true
	}
	avx2 := cpuid.CPU.Supports(cpuid.AVX2, cpuid.F16C, cpuid.FMA3)
	return []tq2BlockKernel{
		{scalar, func(k int, x []byte, f32 bool, y []BlockQ8K) float32 { return ckern.TQ2_0Dot(k, x, f32, yPtr(y)) }},
		{cVariant{name: "tq2_0 ref x86"}, func(k int, x []byte, f32 bool, y []BlockQ8K) float32 {
			return ckern.TQ2_0DotRef(k, x, f32, orderTQ2X86, yPtr(y))
		}},
		{cVariant{name: "tq2_0 avx2"}.simd(ckern.TQ2_0AVX2Compiled(false), avx2, "scalar build", "AVX2, F16C or FMA"),
			func(k int, x []byte, f32 bool, y []BlockQ8K) float32 {
				return ckern.TQ2_0DotAVX2(k, x, f32, false, yPtr(y))
			}},
		{cVariant{name: "tq2_0 avx_vnni"}.simd(ckern.TQ2_0AVX2Compiled(true), avx2 && cpuid.CPU.Supports(cpuid.AVXVNNI), "scalar build", "AVX2, F16C, FMA or AVX-VNNI"),
			func(k int, x []byte, f32 bool, y []BlockQ8K) float32 {
				return ckern.TQ2_0DotAVX2(k, x, f32, true, yPtr(y))
			}},
		{cVariant{name: "tq2_0 avx512_vnni"}.simd(ckern512.CompiledTQ2_0VNNI(), ckern512.CPUHasTQ2_0VNNI(), "scalar build", "AVX-512 F/BW/VL/VNNI, F16C or FMA"),
			func(k int, x []byte, f32 bool, y []BlockQ8K) float32 {
				return ckern512.TQ2_0DotVNNI(k, x, f32, yPtr(y))
			}},
	}
}

// TestTQ2_0BlocksMatchReference: the one-column kernels of converted weights,
// run on the TQ2_0 blocks the format's encoder makes from a BITCOS row's
// values and fp16 scales, return the float32 bits of VecDotQ8KTQ2Order
// (ggml's x86 TQ2_0 float order) on the BITCOS row; on f32 blocks (the same
// codes with a per-tensor f32 scale, as a converted I2_S-sourced weight
// holds them) the bits of VecDotQ8KTQ2Order with that scale, which the native
// x86 kernels give; for every test shape and zero density, quantized and raw
// activations (the AVX-512 VNNI build also as the GEMV of every row in one
// call, ckern512.TQ2_0GEMVVNNI). The reference in the other two orders gives
// VecDotQ8K's (exact) and VecDotQ8KTQ2ARMOrder's bits. On blocks of arbitrary
// bytes (code 3 included, which no converted weight holds but ggml's kernel
// multiplies as 3) every build agrees bit for bit.
func TestTQ2_0BlocksMatchReference(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(20, 66))
	kerns := tq2BlockKernels()
	vs := make([]cVariant, len(kerns))
	for i, k := range kerns {
		vs[i] = k.v
	}
	notRun(t, vs)
	vnni := kerns[len(kerns)-1]
	checked := map[string]int{}
	check := func(what string, m *testRows, y []BlockQ8K) {
		f32 := m.d16 == nil
		bb := map[bool]int{false: 66, true: 68}[f32]
		row := m.k / QK_K * bb
		// the VNNI build's GEMV (one cgo call for every row, as advise runs
		// it) gives each row what the one-row call gives
		var gemv []float32
		if vnni.v.why == "" {
			gemv = make([]float32, m.rows)
			ckern512.TQ2_0GEMVVNNI(m.k, m.rows, m.tq2, f32, yPtr(y), gemv)
		}
		for r := range m.rows {
			x := m.tq2[r*row : (r+1)*row]
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
				got := kr.run(m.k, x, f32, y)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s %s f32 %v row %d: %v (%#08x), Go TQ2_0-order reference %v (%#08x)", kr.v.name, what, f32, r,
						got, math.Float32bits(got), want, math.Float32bits(want))
				}
				checked[kr.v.name]++
			}
			for _, o := range []struct {
				order int
				want  float32
			}{
				{orderExact, VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)},
				{orderTQ2ARM, VecDotQ8KTQ2ARMOrder(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)},
			} {
				if got := ckern.TQ2_0DotRef(m.k, x, f32, o.order, yPtr(y)); math.Float32bits(got) != math.Float32bits(o.want) {
					t.Fatalf("tq2_0 ref order %d %s f32 %v row %d: %v (%#08x), Go reference %v (%#08x)", o.order, what, f32, r,
						got, math.Float32bits(got), o.want, math.Float32bits(o.want))
				}
				checked[fmt.Sprintf("tq2_0 ref order %d", o.order)]++
			}
		}
	}
	for _, k := range testKs {
		for _, perTensor := range []bool{false, true} {
			m := makeRows(t, rng, k, len(testZs), testZs, perTensor)
			for _, raw := range []bool{false, true} {
				check(fmtShape(k, perTensor, raw), m, randomActivations(rng, k, raw))
			}
		}
	}
	zs := make([]float64, 256)
	for i := range zs {
		zs[i] = rng.Float64()
	}
	check("wide", makeRows(t, rng, 2560, len(zs), zs, false), randomActivations(rng, 2560, true))
	check("wide f32", makeRows(t, rng, 2560, len(zs), zs, true), randomActivations(rng, 2560, true))

	for i := range 64 {
		k := 256 * (1 + i%27)
		f32 := i%3 == 0
		bb := map[bool]int{false: 66, true: 68}[f32]
		x := make([]byte, k/QK_K*bb)
		for j := range x {
			x[j] = byte(rng.Uint32())
		}
		for b := range k / QK_K { // finite scales: a NaN's bits need not agree
			x[b*bb+64], x[b*bb+65] = byte(rng.Uint32()), byte(rng.IntN(0x7c))
			if f32 {
				binary.LittleEndian.PutUint32(x[b*bb+64:], math.Float32bits(float32(rng.NormFloat64())))
			}
		}
		y := randomActivations(rng, k, i%2 == 0)
		want := kerns[1].run(k, x, f32, y)
		for _, kr := range kerns {
			if kr.v.why != "" {
				continue
			}
			if got := kr.run(k, x, f32, y); math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("arbitrary bytes, k=%d f32 %v: %s %v (%#08x), reference %v (%#08x)", k, f32, kr.v.name, got, math.Float32bits(got), want, math.Float32bits(want))
			}
			checked["arbitrary bytes"]++
		}
	}
	t.Logf("outputs checked bit-exact: %v", checked)
}
