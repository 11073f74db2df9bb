package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// TestQuantizeQ8KBuildsMatchReference: both builds of c/bitcos_q8_K.c (the
// AVX2 one compiled with FMA contraction on, as ggml compiles it) write the
// bytes of QuantizeQ8K (quantize_row_q8_K_ref's twin) for every block: normal
// and wide-ranging activations, an all-zero block, ties of magnitude (the
// first one sets the sign), quants that land on halves (round half to even),
// a NaN, infinities, and magnitudes so small that iscale overflows.
func TestQuantizeQ8KBuildsMatchReference(t *testing.T) {
	needCgo(t)
	builds := []struct {
		v    cVariant
		avx2 bool
	}{
		{cVariant{name: "q8_K_generic"}, false},
		{cVariant{name: "q8_K_avx2"}.simd(ckern.QuantizeQ8KCompiledAVX2(), cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3), "scalar build", "AVX2/FMA"), true},
	}
	notRun(t, []cVariant{builds[0].v, builds[1].v})
	rng := rand.New(rand.NewPCG(11, 12))
	block := func(f func(j int) float32) []float32 {
		x := make([]float32, QK_K)
		for j := range x {
			x[j] = f(j)
		}
		return x
	}
	normal := func(scale float64) func(int) float32 {
		return func(int) float32 { return float32(rng.NormFloat64() * scale) }
	}
	cases := []struct {
		name string
		x    []float32
	}{
		{"normal", block(normal(1))},
		{"large", block(normal(1e30))},
		{"small", block(normal(1e-30))},
		{"zero", block(func(int) float32 { return 0 })},
		{"negative zeros", block(func(j int) float32 { return float32(math.Copysign(0, -1)) })},
		{"tie, positive first", block(func(j int) float32 {
			return map[int]float32{17: 5, 100: -5}[j] + float32(j%7)*0.1
		})},
		{"tie, negative first", block(func(j int) float32 {
			return map[int]float32{3: -7, 200: 7}[j] + float32(j%5)*0.1
		})},
		{"halves", block(func(j int) float32 {
			if j == 0 {
				return -127 // iscale = 1
			}
			return float32(j%256-128) + 0.5
		})},
		{"nan", block(func(j int) float32 {
			if j == 9 {
				return float32(math.NaN())
			}
			return float32(rng.NormFloat64())
		})},
		{"inf", block(func(j int) float32 {
			if j == 50 {
				return float32(math.Inf(-1))
			}
			return float32(rng.NormFloat64())
		})},
		{"iscale overflows", block(func(int) float32 { return float32(rng.NormFloat64() * 1e-38) })},
		{"a NaN, quants on rounded halves", roundedHalves(true)},
		{"quants on rounded halves", roundedHalves(false)},
		{"equal values", block(func(int) float32 { return 0.25 })},
	}
	for i := range 800 { // wide-ranging magnitudes; every other block with a NaN or an infinity, which the
		// AVX2 path hands to the reference's loops (their rounded multiply must survive FMA contraction)
		x := block(normal(math.Pow(10, rng.Float64()*60-30)))
		name := "random"
		switch i % 4 {
		case 1:
			x[rng.IntN(QK_K)], name = float32(math.NaN()), "random, a NaN"
		case 3:
			x[rng.IntN(QK_K)], name = float32(math.Inf(1-2*rng.IntN(2))), "random, an infinity"
		}
		cases = append(cases, struct {
			name string
			x    []float32
		}{name, x})
	}
	var x []float32
	for _, c := range cases {
		x = append(x, c.x...)
	}
	want := make([]BlockQ8K, len(cases))
	QuantizeQ8K(x, want)
	for _, b := range builds {
		if b.v.why != "" {
			continue
		}
		got := make([]BlockQ8K, len(cases))
		ckern.QuantizeQ8K(b.avx2, x, unsafe.Pointer(&got[0]))
		for i := range cases {
			if math.Float32bits(got[i].D) != math.Float32bits(want[i].D) || got[i].Qs != want[i].Qs || got[i].Bsums != want[i].Bsums {
				t.Fatalf("%s, block %d (%s): d %v q %v bsums %v, want d %v q %v bsums %v", b.v.name, i, cases[i].name,
					got[i].D, got[i].Qs[:8], got[i].Bsums, want[i].D, want[i].Qs[:8], want[i].Bsums)
			}
		}
	}
}

// roundedHalves is a block whose max is -3 (iscale = -127/-3, not exact) and
// whose other x make iscale*x round to exactly k + 0.5 in float32 though the
// exact product is not k + 0.5: nearest_int's add must see the rounded
// product (a tie, to even); an FMA of the multiply and the add sees the
// exact one and rounds the other way about half the time. With nan, x[1] is
// a NaN (the AVX2 path then runs the reference's loops).
func roundedHalves(nan bool) []float32 {
	x := make([]float32, QK_K)
	x[0] = -3
	iscale := float32(-127) / x[0]
	for j := 2; j < QK_K; j++ {
		t := float32(j%120) + 0.5
		v := t / iscale
		for range 64 {
			if iscale*v == t && float64(iscale)*float64(v) != float64(t) {
				break
			}
			v = math.Nextafter32(v, 4)
		}
		x[j] = v
	}
	if nan {
		x[1] = float32(math.NaN())
	}
	return x
}
