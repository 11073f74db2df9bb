package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// TestCodesFourColumns: the four-column batch kernel returns, per column,
// the float32 bits of VecDotQ8KTQ2Order (TQ2_0's x86 float order), in its
// AVX2 and scalar builds, with per-256 and per-tensor scales and four
// different activation columns (quantized and raw).
func TestCodesFourColumns(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(95, 96))
	for _, tc := range []struct {
		k, rows   int
		perTensor bool
	}{
		{256, 8, false}, {2560, 12, false}, {6912, 4, true},
	} {
		m := makeRows(t, rng, tc.k, tc.rows, []float64{0, 0.3, 0.42, 0.52, 1}, tc.perTensor)
		var ys [4][]BlockQ8K
		var yp [4]unsafe.Pointer
		for j := range ys {
			ys[j] = randomActivations(rng, tc.k, j%2 == 1)
			yp[j] = yPtr(ys[j])
		}
		for _, avx2 := range []bool{false, true} {
			if avx2 {
				v := cVariant{name: "codes_avx2 x4"}.simd(ckern.CodesCompiledAVX2(),
					cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT, cpuid.FMA3), "scalar build", "AVX2/BMI2/F16C/POPCNT/FMA")
				if v.why != "" {
					notRun(t, []cVariant{v})
					continue
				}
			}
			out := make([]float32, 4*tc.rows)
			ckern.CodesGEMV4(avx2, tc.k, tc.rows, m.bitmap, m.signs, m.off, m.d16, m.d32, yp, out)
			for r := range tc.rows {
				for j := range 4 {
					want := VecDotQ8KTQ2Order(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, ys[j])
					if math.Float32bits(out[4*r+j]) != math.Float32bits(want) {
						t.Fatalf("k%d avx2=%v row %d column %d: %g, want %g", tc.k, avx2, r, j, out[4*r+j], want)
					}
				}
			}
		}
	}
}
