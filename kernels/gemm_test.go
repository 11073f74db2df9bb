package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// The panel layout of c/bitcos_gemm.h, and the rows of one bitcos_gemm_q8_K
// call (BITCOS_GEMM_MAX_ROWS: two panels).
const (
	gemmRows       = 4
	gemmMaxRows    = 8
	gemmBlockBytes = 1152
)

// gemmBuild is one build of c/bitcos_gemm.c with one of its panel decoders.
type gemmBuild struct {
	cVariant
	tq2 bool // panels from m.tq2 (bitcos_gemm_panel_tq2_0): rows with fp16 scales only
	run func(k, rows, prows int, m *testRows, ncols int, ys []BlockQ8K, out []float32, panels []byte)
}

// The panel decoders of c/bitcos_gemm.h.
const (
	panelPdep   = iota // bitcos_gemm_panel
	panelNopdep        // bitcos_gemm_panel_nopdep
	panelTQ2_0         // bitcos_gemm_panel_tq2_0, from the rows' TQ2_0 blocks
)

// gemmBuilds lists the five builds of c/bitcos_gemm.c (scalar, AVX2, AVX2 +
// AVX-VNNI, AVX-512 F+BW, AVX-512 VNNI), each with its panels decoded by
// bitcos_gemm_panel, by bitcos_gemm_panel_nopdep ("_nopdep") and from TQ2_0
// blocks by bitcos_gemm_panel_tq2_0 ("_tq2_0"), and why it cannot run here.
// A SIMD build whose bitcos_gemm_isa is not its own path compiled as a
// fallback: on a CPU with its ISA that fails the tests (cVariant.simd).
func gemmBuilds() []gemmBuild {
	type runFn = func(k, rows, prows int, m *testRows, ncols int, ys []BlockQ8K, out []float32, panels []byte)
	ck := func(b ckern.GemmBuild, src int) runFn {
		return func(k, rows, prows int, m *testRows, ncols int, ys []BlockQ8K, out []float32, panels []byte) {
			if src == panelTQ2_0 {
				ckern.GemmTQ2_0(b, k, rows, prows, m.tq2, m.d16 == nil, ncols, yPtr(ys), out, panels)
				return
			}
			ckern.Gemm(b, src == panelNopdep, k, rows, prows, m.bitmap, m.signs, m.off, m.d16, m.d32, ncols, yPtr(ys), out, panels)
		}
	}
	c512 := func(vnni bool, src int) runFn {
		return func(k, rows, prows int, m *testRows, ncols int, ys []BlockQ8K, out []float32, panels []byte) {
			if src == panelTQ2_0 {
				ckern512.GemmTQ2_0(vnni, k, rows, prows, m.tq2, m.d16 == nil, ncols, yPtr(ys), out, panels)
				return
			}
			ckern512.Gemm(vnni, src == panelNopdep, k, rows, prows, m.bitmap, m.signs, m.off, m.d16, m.d32, ncols, yPtr(ys), out, panels)
		}
	}
	avx2 := cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT, cpuid.FMA3)
	const avx2Needs = "AVX2/BMI2/F16C/POPCNT/FMA"
	var bs []gemmBuild
	for src, sfx := range []string{panelPdep: "", panelNopdep: "_nopdep", panelTQ2_0: "_tq2_0"} {
		tq2 := src == panelTQ2_0
		bs = append(bs,
			gemmBuild{cVariant{name: "gemm_generic" + sfx}, tq2, ck(ckern.GemmGeneric, src)},
			gemmBuild{cVariant{name: "gemm_avx2" + sfx}.simd(ckern.GemmISA(ckern.GemmAVX2) == ckern.GemmISAAVX2, avx2, "scalar build", avx2Needs),
				tq2, ck(ckern.GemmAVX2, src)},
			gemmBuild{cVariant{name: "gemm_avx2_vnni" + sfx}.simd(ckern.GemmISA(ckern.GemmAVX2VNNI) == ckern.GemmISAAVX2VNNI,
				avx2 && cpuid.CPU.Supports(cpuid.AVXVNNI), "build without AVX-VNNI", avx2Needs+"/AVX-VNNI"), tq2, ck(ckern.GemmAVX2VNNI, src)},
			gemmBuild{cVariant{name: "gemm_avx512" + sfx}.simd(ckern512.GemmISA(false) == ckern.GemmISAAVX512, ckern512.CPUHasGemm(false),
				"build without AVX-512", "AVX-512 F/BW, BMI2, FMA, F16C"), tq2, c512(false, src)},
			gemmBuild{cVariant{name: "gemm_avx512_vnni" + sfx}.simd(ckern512.GemmISA(true) == ckern.GemmISAAVX512VNNI, ckern512.CPUHasGemm(true),
				"build without VNNI", "AVX-512 F/BW/VL/VNNI, BMI2, FMA, F16C"), tq2, c512(true, src)},
		)
	}
	return bs
}

// wantPanels is the panel layout of c/bitcos_gemm.h built from the planes:
// rows in groups of prows, each group in panels of up to gemmRows rows (a
// group of more than 4 rows fills two), codes t+1 (1 and scale 0 for
// padding rows); the panels in the order the driver decodes them.
func wantPanels(m *testRows, prows int) []byte {
	nb := m.k / QK_K
	psize := nb * gemmBlockBytes
	var out []byte
	for r0 := 0; r0 < m.rows; r0 += prows {
		nr := min(prows, m.rows-r0)
		for i0 := 0; i0 < nr; i0 += gemmRows {
			panel := make([]byte, psize)
			for i := range gemmRows {
				r := r0 + i0 + i
				real := i0+i < nr
				for b := range nb {
					blk := panel[b*gemmBlockBytes:]
					for e := range QK_K {
						c := byte(1)
						if real {
							c = byte(int(m.p.Value(r, b*QK_K+e)) + 1)
						}
						blk[512*(i/2)+64*(e/32)+32*(i%2)+e%32] = c
					}
					var d float32
					if real {
						d = m.d32
						if m.d16 != nil {
							d = f16(m.d16[r*nb+b])
						}
					}
					for l := range 8 {
						binary.LittleEndian.PutUint32(blk[1024+64*(i/2)+32*(i%2)+4*l:], math.Float32bits(d))
					}
				}
			}
			out = append(out, panel...)
		}
	}
	return out
}

// TestGemmMatchesTQ2Order: every build of the batched kernel (both panel
// decodes) returns, for every row and column, the float32 bits of
// VecDotQ8KTQ2Order (TQ2_0's x86 float order), and decodes panels byte for
// byte as the layout says; over row lengths 256..6912 (K = 6912: K-slabs of
// 10, 10 and 7 blocks), 1..8 rows per call (one panel or two: the AVX-512
// path's tiles of 1..4 row pairs across both) with row counts that leave
// partial panels (the AVX2 path's 2-row and 4-row tiles), 1..17 and 70
// columns (tails of 1, 2 and 3 past the AVX-512 path's 4-column tiles, of 1
// and 2 past the AVX2 path's 3-column tiles; two column groups), rows of
// every zero density (all-zero and dense rows too), fp16 scales with zeros
// and subnormals and per-tensor f32 scales, quantized and raw activations
// (all-zero blocks, -127..127).
func TestGemmMatchesTQ2Order(t *testing.T) {
	needCgo(t)
	builds := gemmBuilds()
	var vs []cVariant
	for _, b := range builds {
		vs = append(vs, b.cVariant)
	}
	notRun(t, vs)
	rng := rand.New(rand.NewPCG(131, 132))
	checked := map[string]int{}
	check := func(what string, m *testRows, prows, ncols int, ys []BlockQ8K) {
		nb := m.k / QK_K
		want := make([]float32, ncols*m.rows)
		for j := range ncols {
			for r := range m.rows {
				want[j*m.rows+r] = VecDotQ8KTQ2Order(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, ys[j*nb:(j+1)*nb])
			}
		}
		wantP := wantPanels(m, prows)
		for _, b := range builds {
			if b.why != "" || (b.tq2 && m.tq2 == nil) {
				continue // not run here, or TQ2_0 rows without a TQ2_0 form (a per-tensor f32 scale)
			}
			out := make([]float32, ncols*m.rows)
			for i := range out {
				out[i] = float32(math.NaN())
			}
			panels := make([]byte, len(wantP))
			b.run(m.k, m.rows, prows, m, ncols, ys, out, panels)
			for i := range out {
				if math.Float32bits(out[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s %s prows=%d ncols=%d: row %d column %d: %v (%#08x), want %v (%#08x)", b.name, what, prows, ncols,
						i%m.rows, i/m.rows, out[i], math.Float32bits(out[i]), want[i], math.Float32bits(want[i]))
				}
			}
			for i := range panels {
				if panels[i] != wantP[i] {
					t.Fatalf("%s %s prows=%d: panel byte %d (panel %d, block %d, offset %d) is %#02x, want %#02x", b.name, what, prows,
						i, i/(nb*gemmBlockBytes), i%(nb*gemmBlockBytes)/gemmBlockBytes, i%gemmBlockBytes, panels[i], wantP[i])
				}
			}
			checked[b.name] += len(out)
		}
	}
	for _, k := range []int{256, 512, 2560, 6912} {
		for _, perTensor := range []bool{false, true} {
			m := makeRows(t, rng, k, 13, testZs, perTensor)
			for _, raw := range []bool{false, true} {
				ncols := 70 // more than a column group of 64
				ys := make([]BlockQ8K, 0, ncols*k/QK_K)
				for j := range ncols {
					ys = append(ys, randomActivations(rng, k, raw != (j%3 == 2))...)
				}
				for prows := 1; prows <= gemmMaxRows; prows++ {
					for _, nc := range []int{1, 2, 3, 4, 5, 7, 17} {
						check(fmtShape(k, perTensor, raw), m, prows, nc, ys)
					}
				}
				check(fmtShape(k, perTensor, raw), m, gemmMaxRows, ncols, ys)
			}
		}
	}
	// 256 rows of zero densities spread over [0, 1]
	zs := make([]float64, 256)
	for i := range zs {
		zs[i] = rng.Float64()
	}
	m := makeRows(t, rng, 2560, len(zs), zs, false)
	ys := make([]BlockQ8K, 0, 6*m.k/QK_K)
	for j := range 6 {
		ys = append(ys, randomActivations(rng, m.k, j%2 == 0)...)
	}
	check("wide", m, gemmMaxRows, 6, ys)
	t.Logf("outputs checked bit-exact per build: %v", checked)
}

// TestGemmBrokenFails: the comparison above catches a kernel that sums in
// another float order. The exact order (VecDotQ8K: per block a rounded
// multiply and a rounded add of the exact block sum) must differ from the
// gemm's results on some outputs of a shape the test uses, or the test could
// not tell the two orders apart.
func TestGemmBrokenFails(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(7, 8))
	m := makeRows(t, rng, 6912, 13, testZs, false)
	nb := m.k / QK_K
	ys := make([]BlockQ8K, 0, 4*nb)
	for range 4 {
		ys = append(ys, randomActivations(rng, m.k, false)...)
	}
	out := make([]float32, 4*m.rows)
	ckern.Gemm(ckern.GemmGeneric, false, m.k, m.rows, gemmRows, m.bitmap, m.signs, m.off, m.d16, m.d32, 4, yPtr(ys), out, nil)
	differ := 0
	for j := range 4 {
		for r := range m.rows {
			if math.Float32bits(out[j*m.rows+r]) != math.Float32bits(VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, ys[j*nb:(j+1)*nb])) {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Fatal("the exact order agrees with the TQ2_0 order on every output: the gemm test cannot detect a wrong float order")
	}
	t.Logf("%d of %d outputs differ between the exact and the TQ2_0 order", differ, 4*m.rows)
}
