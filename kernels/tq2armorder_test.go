package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// TestTQ2ARMOrderReference: VecDotQ8KTQ2ARMOrder is the scalar (exact) order
// with the per-block multiply and add fused: bit-equal to VecDotQ8K on
// one-block rows, within the rounding of one product per block otherwise,
// and different in the last bits on some rows (else it would not be fusing).
func TestTQ2ARMOrderReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	differ, rows := 0, 0
	for _, k := range []int{256, 2560, 6912} {
		for _, perTensor := range []bool{false, true} {
			m := makeRows(t, rng, k, 64, []float64{0, 0.3, 0.42, 0.52, 0.9, 1}, perTensor)
			for _, raw := range []bool{false, true} {
				y := randomActivations(rng, k, raw)
				for r := range m.rows {
					arm := VecDotQ8KTQ2ARMOrder(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
					exact := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
					rows++
					if math.Float32bits(arm) == math.Float32bits(exact) {
						continue
					}
					if k == QK_K {
						t.Fatalf("k=256 row %d: ARM order %v, exact order %v: one block must agree", r, arm, exact)
					}
					differ++
					// each block's fused step skips one rounding of the
					// product (at most half an ulp of |term| <= |d|*256*127);
					// the sums round alike: bound by the terms' magnitudes
					bound := m.termBound(r, y)
					if d := math.Abs(float64(arm) - float64(exact)); d > 0x1p-22*bound {
						t.Fatalf("k=%d row %d: ARM order %v far from exact order %v (bound %g)", k, r, arm, exact, 0x1p-22*bound)
					}
				}
			}
		}
	}
	if differ == 0 {
		t.Fatalf("ARM order equals the exact order on all %d rows: it does not fuse", rows)
	}
	t.Logf("%d of %d rows differ in the last bits from the exact order", differ, rows)
}

// TestFMA32: fma32 rounds once (a case where rounding the product first
// loses the answer), including a tie that double rounding through float64
// would break.
func TestFMA32(t *testing.T) {
	a := float32(1 + 0x1p-12)
	// a*a = 1 + 2^-11 + 2^-24: the product rounds to 1 + 2^-11 (a tie, to
	// even), so mul+add of -(1 + 2^-11) gives 0 and the fused form 2^-24
	if got := fma32(a, a, -(1 + 0x1p-11)); got != 0x1p-24 {
		t.Fatalf("fma32 = %g, want 2^-24", got)
	}
	if got := float32(a*a) + float32(-(1 + 0x1p-11)); got != 0 {
		t.Fatalf("mul+add = %g, want 0 (the case does not tell the two apart)", got)
	}
	// -(1 + 2^-23) * (2^-24 - 2^-47) + (1 + 2^-23) = 1 + 2^-24 + 2^-70:
	// just above the float32 tie between 1 and 1 + 2^-23, so it rounds up;
	// a float64 FMA rounds it to the tie first, and then to even, 1
	x, y := float32(-(1 + 0x1p-23)), float32(0x1p-24-0x1p-47)
	c := float32(1 + 0x1p-23)
	want := float32(1 + 0x1p-23)
	if got := fma32(x, y, c); got != want {
		t.Fatalf("fma32 = %.10g, want %.10g", got, want)
	}
	if got := float32(math.FMA(float64(x), float64(y), float64(c))); got == want {
		t.Fatalf("double rounding gives the right answer too (%.10g): the case is not a test", got)
	}
}

// TestTQ2ARMOrderC: the C ARM-order paths this build compiles (the scalar
// tq2order_arm, the portable build of neon_tq2, the batch path on codes,
// four columns at once) return VecDotQ8KTQ2ARMOrder's bits on every test
// shape and on 256 rows of zero densities over [0, 1]. The NEON paths
// themselves run under qemu (TestNeonUnderQemu).
func TestTQ2ARMOrderC(t *testing.T) {
	needCgo(t)
	if s := ckern.NeonSIMD(); s != 0 {
		t.Fatalf("the native build of bitcos_neon_tq2.c compiled its NEON path (%d) on this host", s)
	}
	rng := rand.New(rand.NewPCG(83, 84))
	paths := []struct {
		name string
		p    ckern.ARMPath
	}{{"tq2order_arm", ckern.ARMScalar}, {"neon_tq2 (portable)", ckern.ARMNeon}, {"codes", ckern.ARMCodes}, {"codes x4", ckern.ARMCodes4}}
	check := func(what string, m *testRows, y []BlockQ8K) {
		for _, p := range paths {
			out := make([]float32, m.rows)
			ckern.ARMGEMV(p.p, m.k, m.rows, m.bitmap, m.signs, m.off, m.d16, m.d32, yPtr(y), out)
			for r := range m.rows {
				want := VecDotQ8KTQ2ARMOrder(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
				if math.Float32bits(out[r]) != math.Float32bits(want) {
					t.Fatalf("%s %s row %d: C %v (%#08x), Go %v (%#08x)", p.name, what, r, out[r], math.Float32bits(out[r]), want, math.Float32bits(want))
				}
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
}
