package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// TestTQ2YardstickAsGGML: the TQ2_0 yardstick built as ggml builds its own
// TQ2_0 kernel (internal/ckern/tq2_0_ggml.c: -O3, FMA, GCC's contraction;
// what `gguf-bitcos advise` times for the TQ2_0 layout) computes TQ2_0's x86
// float order bit for bit: VecDotQ8KTQ2Order on the same values and scales.
// It fails if the multiply and add did not fuse (a separate multiply and add
// rounds twice; the -O2 build, TQ2AVX2, differs in some of these rows) or if
// the AVX2 build was lost.
func TestTQ2YardstickAsGGML(t *testing.T) {
	needCgo(t)
	v := cVariant{name: "tq2_0 yardstick as ggml builds it"}.simd(ckern.TQ2CompiledGGML(),
		cpuid.CPU.Supports(cpuid.AVX2, cpuid.F16C, cpuid.FMA3), "generic TQ2_0 kernel", "AVX2/F16C/FMA")
	notRun(t, []cVariant{v})
	if v.why != "" {
		return
	}
	rng := rand.New(rand.NewPCG(12, 13))
	differO2 := 0 // rows where the -O2 build (mul, then add) gives other bits
	n := 0
	for _, k := range testKs {
		for _, raw := range []bool{false, true} {
			m := makeRows(t, rng, k, 40, testZs, false)
			tq := make([]byte, format.TQ2_0.TensorBytes(k, m.rows))
			if err := format.TQ2_0.Encode(m.p, &format.Scales{Group: QK_K, F16: m.d16}, tq); err != nil {
				t.Fatal(err)
			}
			y := randomActivations(rng, k, raw)
			got, o2 := make([]float32, m.rows), make([]float32, m.rows)
			ckern.TQ2GEMV(ckern.TQ2AVX2GGML, k, m.rows, false, tq, yPtr(y), got)
			ckern.TQ2GEMV(ckern.TQ2AVX2, k, m.rows, false, tq, yPtr(y), o2)
			for r := range m.rows {
				want := VecDotQ8KTQ2Order(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), 0, y)
				if math.Float32bits(got[r]) != math.Float32bits(want) {
					t.Fatalf("k=%d raw=%v row %d: %v, TQ2_0 x86 order %v", k, raw, r, got[r], want)
				}
				if math.Float32bits(o2[r]) != math.Float32bits(want) {
					differO2++
				}
				n++
			}
		}
	}
	if differO2 == 0 && ckern.TQ2CompiledAVX2() {
		t.Errorf("the -O2 build agrees with the FMA order on all %d rows: these rows cannot tell a fused step from a separate one", n)
	}
	t.Logf("%d rows bit-identical; the -O2 build (no FMA) differs on %d", n, differO2)
}
