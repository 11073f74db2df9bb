package kernels

import (
	"fmt"
	"math"

	"github.com/x448/float16"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// tq2Variants lists the C kernels in TQ2_0's x86 float order: the scalar
// parity mode and the fast ones (those this build and CPU run; why says why
// not).
func tq2Variants() []cVariant {
	gemv := func(v ckern.Variant) func(m *testRows, y []BlockQ8K, out []float32) {
		return func(m *testRows, y []BlockQ8K, out []float32) {
			ckern.GEMV(v, m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}
	}
	cpuAVX2 := cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT, cpuid.FMA3)
	const avx2Needs, avx512Needs = "AVX2/BMI2/F16C/POPCNT/FMA", "AVX-512 F/BW, BMI2 or FMA"
	vs := []cVariant{
		{name: "tq2order", run: gemv(ckern.TQ2Order)},
		cVariant{name: "avx2_tq2", run: gemv(ckern.AVX2TQ2)}.
			simd(ckern.Compiled(ckern.AVX2TQ2), cpuAVX2, "scalar tq2order fallback", avx2Needs),
		cVariant{name: "avx512_tq2", run: func(m *testRows, y []BlockQ8K, out []float32) {
			ckern512.GEMVTQ2(m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}}.simd(ckern512.CompiledTQ2(), ckern512.CPUHasTQ2(), "scalar tq2order fallback", avx512Needs),
		cVariant{name: "avx512_tq2_vnni", run: func(m *testRows, y []BlockQ8K, out []float32) {
			ckern512.GEMVTQ2VNNI(m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}}.simd(ckern512.CompiledTQ2VNNI(), ckern512.CPUHasTQ2VNNI(), "scalar tq2order fallback", avx512Needs+", VL or VNNI"),
		{name: "codes_generic", run: func(m *testRows, y []BlockQ8K, out []float32) {
			ckern.CodesGEMV(false, m.k, m.rows, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}},
		cVariant{name: "codes_avx2", run: func(m *testRows, y []BlockQ8K, out []float32) {
			ckern.CodesGEMV(true, m.k, m.rows, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}}.simd(ckern.CodesCompiledAVX2(), cpuAVX2, "scalar build", avx2Needs),
		cVariant{name: "avx2_nopdep_tq2", run: gemv(ckern.AVX2NoPdepTQ2)}.
			simd(ckern.Compiled(ckern.AVX2NoPdepTQ2), cpuAVX2, "scalar tq2order fallback", avx2Needs),
	}
	return append(vs, clmulVariants()...)
}

// clmulVariants: the three builds of c/bitcos_avx2_clmul.c, each permuting
// the column itself.
func clmulVariants() []cVariant {
	var vs []cVariant
	for _, b := range []struct {
		name  string
		build ckern.ClmulBuild
		needs []cpuid.FeatureID
	}{
		{"avx2_clmul", ckern.ClmulYMM, []cpuid.FeatureID{cpuid.VPCLMULQDQ}},
		{"avx2_clmul_xmm", ckern.ClmulXMM, nil},
		{"clmul_generic", ckern.ClmulGeneric, nil},
	} {
		v := cVariant{name: b.name, run: func(m *testRows, y []BlockQ8K, out []float32) {
			ckern.ClmulGEMV(b.build, m.k, m.rows, false, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
		}}
		if b.build != ckern.ClmulGeneric {
			needs := append([]cpuid.FeatureID{cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT, cpuid.FMA3, cpuid.CLMUL}, b.needs...)
			v = v.simd(ckern.ClmulCompiled(b.build), cpuid.CPU.Supports(needs...), "scalar fallback",
				"one of AVX2/BMI2/F16C/POPCNT/FMA/PCLMULQDQ(/VPCLMULQDQ)")
		}
		vs = append(vs, v)
	}
	return vs
}

// TestTQ2OrderMatchesReference: the C kernels in TQ2_0's float order (the
// scalar parity mode and the fast AVX2 and AVX-512 ones) return the float32
// bits of VecDotQ8KTQ2Order (TQ2_0's x86 float order, written from ggml's
// AVX2 kernel) on encoder rows of every test shape, per-256 and per-tensor
// scales, quantized and raw activations, and on rows of every zero density
// (every bitmap byte, sign offset and word population); and they are close
// to, but as a rule not bit-equal with, the exact-order kernels.
func TestTQ2OrderMatchesReference(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(71, 72))
	vs := tq2Variants()
	notRun(t, vs)
	differ := 0
	checked := map[string]int{}
	check := func(what string, m *testRows, y []BlockQ8K) {
		want := make([]float32, m.rows)
		for r := range m.rows {
			want[r] = VecDotQ8KTQ2Order(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
		}
		for _, v := range vs {
			if v.why != "" {
				continue
			}
			out := make([]float32, m.rows)
			v.run(m, y, out)
			for r := range m.rows {
				if math.Float32bits(out[r]) != math.Float32bits(want[r]) {
					t.Fatalf("%s %s row %d: C %v (%#08x), Go reference %v (%#08x)", v.name, what, r,
						out[r], math.Float32bits(out[r]), want[r], math.Float32bits(want[r]))
				}
			}
			checked[v.name] += m.rows
		}
		for r := range m.rows {
			exact := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
			if want[r] == exact {
				continue
			}
			differ++
			// Both orders round a few float steps per block: bound the
			// difference by the blocks' largest possible terms.
			bound := m.termBound(r, y)
			if d := math.Abs(float64(want[r] - exact)); d > 1e-6*bound {
				t.Fatalf("%s row %d: TQ2_0 order %v far from exact order %v", what, r, want[r], exact)
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
	m := makeRows(t, rng, 2560, len(zs), zs, false)
	check("wide", m, randomActivations(rng, 2560, true))
	t.Logf("rows checked bit-exact per variant: %v; %d outputs differ in the last bits between the two orders", checked, differ)
}

func fmtShape(k int, perTensor, raw bool) string {
	return fmt.Sprintf("k=%d perTensor=%v raw=%v", k, perTensor, raw)
}

func f16(h uint16) float32 { return float16.Frombits(h).Float32() }
