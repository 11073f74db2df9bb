package advise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/kernels"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// Batches (prompt processing). Patch 0012 multiplies a batch of columns
// with the batched kernel of kernels/c/bitcos_gemm.c in both CPU layouts:
// groups of BITCOS_GEMM_MAX_ROWS rows decoded once into two panels of
// BITCOS_GEMM_ROWS (bitcos_gemm_panel from the BITCOS planes in the native
// layout, bitcos_gemm_panel_tq2_0 from the TQ2_0 blocks made at load in the
// tq2_0 layout, f32 blocks with patch 0013), then multiplied with up to 64
// Q8_K columns per call of bitcos_gemm_q8_K (bitcos_gemm_cols). Stock llama.cpp runs the TQ2_0 file's batches through
// ggml's mul_mat, TQ2_0's vec_dot once per (row, column). measureBatched
// times the three with their data in cache, per thread count as the compute
// terms are (each thread its own loop over the same matrix), alternated
// round by round as the GEMVs are.

// BatchColumns is the activation columns of the batched measurement: the
// columns one call of bitcos_gemm_q8_K takes in patch 0012 (bitcos_gemm_cols'
// NC), ggml's chunk of a BITCOS batch.
const BatchColumns = 64

// The rows per panel (BITCOS_GEMM_ROWS) and per call of bitcos_gemm_q8_K
// (BITCOS_GEMM_MAX_ROWS: two panels back to back), the prows advise passes
// the gemm driver as patch 0012 groups them.
const (
	gemmPanelRows = 4
	gemmGroupRows = 8
)

// batchRows is the row count of the batched measurement's matrix of rows of
// k weights: cacheRows (about 128 KiB of TQ2_0, in L2 with the columns
// beside it) rounded up to whole groups.
func batchRows(k int) int {
	return (cacheRows(k) + gemmGroupRows - 1) / gemmGroupRows * gemmGroupRows
}

// cols is n Q8_K activation columns of k values each, one after another
// (column j's k/256 blocks at y[j*k/256:]): what the gemm driver reads.
type cols struct {
	k, n int
	y    []kernels.BlockQ8K
}

// newCols quantizes n columns of normal random floats (kernels.QuantizeQ8K).
func newCols(rng *rand.Rand, k, n int) cols {
	c := cols{k: k, n: n, y: make([]kernels.BlockQ8K, n*k/256)}
	x := make([]float32, k)
	for j := range n {
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		kernels.QuantizeQ8K(x, c.col(j))
	}
	return c
}

func (c cols) col(j int) []kernels.BlockQ8K { return c.y[j*c.k/256 : (j+1)*c.k/256] }
func (c cols) ptr(j int) unsafe.Pointer     { return unsafe.Pointer(&c.y[j*c.k/256]) }

// batchFunc multiplies every row of m with every column of c into out:
// out[j*m.Rows+r] is row r times column j (ggml's dst layout).
type batchFunc func(m *matrix, c cols, out []float32)

// batchKernel is one layout's way of running a batch.
type batchKernel struct {
	Name string // what runs, for people
	// tq2Scales: computes with the TQ2_0 blocks' fp16 scales (compare's);
	// order: the float order of its Go reference
	tq2Scales bool
	order     int
	run       batchFunc
}

// gemmBuild is a build of c/bitcos_gemm.c runnable here: its two drivers
// (ckern.Gemm and ckern.GemmTQ2_0, or ckern512's).
type gemmBuild struct {
	Name   string // its path, gemmISAName
	bitcos func(nopdep bool, k, rows, prows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, ncols int, ys unsafe.Pointer, out []float32, panels []byte)
	tq2    func(k, rows, prows int, tq2 []byte, f32 bool, ncols int, ys unsafe.Pointer, out []float32, panels []byte)
}

// gemmISAName names a value of bitcos_gemm_isa.
func gemmISAName(isa int) string {
	switch isa {
	case ckern.GemmISAAVX2:
		return "AVX2"
	case ckern.GemmISAAVX2VNNI:
		return "AVX2+AVX-VNNI"
	case ckern.GemmISAAVX512:
		return "AVX-512 F+BW"
	case ckern.GemmISAAVX512VNNI:
		return "AVX512-VNNI"
	}
	return "scalar"
}

// pickGemm returns the build of bitcos_gemm.c a llama.cpp build of kind
// build with features f runs here, or why none is measured. Patch 0012 runs
// it where ggml_bitcos_gemm_ok holds, the build's TQ2_0 kernel being in the
// x86 float order (AVX2 and FMA: hasAVX2), with the SIMD path the build
// compiled: in a native build the best of AVX-512 VNNI, AVX-512 F+BW,
// AVX-VNNI and AVX2 this CPU runs (and this cgo build compiled: a build
// whose bitcos_gemm_isa is not its own path is passed over); in an AVX2
// build AVX2 (no AVX-VNNI unless asked). Elsewhere (the baseline build, a
// CPU without AVX2 or FMA, ARM) llama.cpp's batches do not run bitcos_gemm.c,
// and its scalar build, which no llama.cpp build runs, is not measured.
func pickGemm(build string, f ckern.Features) (g gemmBuild, why string) {
	c512 := func(vnni bool) gemmBuild {
		return gemmBuild{Name: gemmISAName(ckern512.GemmISA(vnni)),
			bitcos: func(nopdep bool, k, rows, prows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
				ckern512.Gemm(vnni, nopdep, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels)
			},
			tq2: func(k, rows, prows int, tq2 []byte, f32 bool, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
				ckern512.GemmTQ2_0(vnni, k, rows, prows, tq2, f32, ncols, ys, out, panels)
			}}
	}
	ck := func(b ckern.GemmBuild) gemmBuild {
		return gemmBuild{Name: gemmISAName(ckern.GemmISA(b)),
			bitcos: func(nopdep bool, k, rows, prows int, bitmap, signs []byte, off []uint32, d16 []uint16, d32 float32, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
				ckern.Gemm(b, nopdep, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels)
			},
			tq2: func(k, rows, prows int, tq2 []byte, f32 bool, ncols int, ys unsafe.Pointer, out []float32, panels []byte) {
				ckern.GemmTQ2_0(b, k, rows, prows, tq2, f32, ncols, ys, out, panels)
			}}
	}
	if !hasAVX2(f) {
		return gemmBuild{}, fmt.Sprintf("build %s runs no batched kernel here: patch 0012's ggml_bitcos_gemm_ok needs the build's TQ2_0 kernel in the x86 float order (AVX2 and FMA); its batches run core 0002's paths in the native layout (the one-column kernel per (row, column), rows decoded into codes where the order is ARM's) and the tq2_0 layout's one-column kernel per (row, column)", build)
	}
	native := build == BuildNative || build == ""
	switch {
	case native && ckern512.CPUHasGemm(true) && ckern512.GemmISA(true) == ckern.GemmISAAVX512VNNI:
		return c512(true), ""
	case native && ckern512.CPUHasGemm(false) && ckern512.GemmISA(false) == ckern.GemmISAAVX512:
		return c512(false), ""
	case native && cpuid.CPU.Supports(cpuid.AVXVNNI) && ckern.GemmISA(ckern.GemmAVX2VNNI) == ckern.GemmISAAVX2VNNI:
		return ck(ckern.GemmAVX2VNNI), ""
	case ckern.GemmISA(ckern.GemmAVX2) == ckern.GemmISAAVX2:
		return ck(ckern.GemmAVX2), ""
	}
	return gemmBuild{}, "this cgo build compiled bitcos_gemm.c without its AVX2 path (a compiler that ignored the shims' target pragmas): the batched kernel llama.cpp runs here cannot be measured"
}

// builtHas says whether features f built kernel name.
func builtHas(f ckern.Features, name string) bool {
	k, ok := kernelIndex()[name]
	return ok && f.Built>>k&1 != 0
}

// batchKernels are the batches of the native layout (gemm's panels from the
// BITCOS planes; decoded without pdep where the build's kernel is the one
// without it, as patch 0012 decides), of the tq2_0 layout (gemm's panels
// from the TQ2_0 blocks, f32 blocks with f32) and of the TQ2_0 file (file,
// ggml's TQ2_0 kernel, once per column over all rows: per (row, column) as
// ggml's mul_mat calls it), in that order.
func batchKernels(g gemmBuild, f ckern.Features, file kernel, f32 bool) []batchKernel {
	nopdep := builtHas(f, "avx2_nopdep_tq2") && !builtHas(f, "avx2_tq2")
	panel := "bitcos_gemm_panel"
	if nopdep {
		panel = "bitcos_gemm_panel_nopdep"
	}
	blocks := "TQ2_0 blocks"
	if f32 {
		blocks = "f32 blocks"
	}
	return []batchKernel{
		{Name: panel + " + bitcos_gemm_q8_K (" + g.Name + ")", order: orderTQ2X86,
			run: func(m *matrix, c cols, out []float32) {
				g.bitcos(nopdep, m.K, m.Rows, gemmGroupRows, m.bitmap, m.signs, m.off, m.d16, m.d32, c.n, c.ptr(0), out, nil)
			}},
		{Name: "bitcos_gemm_panel_tq2_0 (" + blocks + ") + bitcos_gemm_q8_K (" + g.Name + ")", tq2Scales: !f32, order: orderTQ2X86,
			run: func(m *matrix, c cols, out []float32) {
				if f32 {
					g.tq2(m.K, m.Rows, gemmGroupRows, m.tq2f32, true, c.n, c.ptr(0), out, nil)
				} else {
					g.tq2(m.K, m.Rows, gemmGroupRows, m.tq2, false, c.n, c.ptr(0), out, nil)
				}
			}},
		{Name: file.Name + " per (row, column) (" + file.Build + ")", tq2Scales: true, order: file.order,
			run: func(m *matrix, c cols, out []float32) {
				for j := range c.n {
					file.run(m, 0, m.Rows, c.ptr(j), out[j*m.Rows:])
				}
			}},
	}
}

// checkBatched runs the batches ks on m and c and checks them before they
// are timed: a few (row, column) pairs of each (the first and last rows and
// columns, and some between) against the Go reference of its float order
// (compare), and, where two compute in one float order on the same scales,
// every output of one against the other's, bit for bit. A batch that read
// other rows or columns, or wrote its outputs elsewhere, fails.
func checkBatched(ks []batchKernel, m *matrix, c cols) error {
	outs := make([][]float32, len(ks))
	for i, k := range ks {
		outs[i] = make([]float32, c.n*m.Rows)
		for j := range outs[i] {
			outs[i][j] = math.Float32frombits(0x7fc00000 | uint32(i+1)) // a NaN of its own: an output no batch wrote differs
		}
		k.run(m, c, outs[i])
		for _, r := range pick(m.Rows) {
			for _, j := range pick(c.n) {
				if err := compare(k.Name, k.order, k.tq2Scales, m, r, c.col(j), outs[i][j*m.Rows+r]); err != nil {
					return fmt.Errorf("column %d: %w", j, err)
				}
			}
		}
	}
	for i := range ks {
		for h := range i {
			if ks[i].order != ks[h].order || ks[i].order == orderNone || ks[i].tq2Scales != ks[h].tq2Scales && m.d16 == nil {
				continue
			}
			for x := range outs[i] {
				if math.Float32bits(outs[i][x]) != math.Float32bits(outs[h][x]) {
					return fmt.Errorf("%v, row %d, column %d: %s %g, %s %g: not bit-identical", m.Shape, x%m.Rows, x/m.Rows,
						ks[i].Name, outs[i][x], ks[h].Name, outs[h][x])
				}
			}
		}
	}
	return nil
}

// pick is the indices checkBatched tries of n: the first four, two between,
// the last two.
func pick(n int) []int {
	var ix []int
	for _, i := range []int{0, 1, 2, 3, n / 3, n / 2, n - 2, n - 1} {
		if i >= 0 && i < n && (len(ix) == 0 || i > ix[len(ix)-1]) {
			ix = append(ix, i)
		}
	}
	return ix
}

// batchPart is one distinct row length of the model: a matrix in cache, its
// columns, and the weights of the model's shapes of that row length.
type batchPart struct {
	m       *matrix
	c       cols
	weights float64
}

// measureBatched times the batches of both layouts and of the TQ2_0 file
// with features f (see the comment above BatchColumns): per distinct K of
// the shapes, a matrix of batchRows rows and BatchColumns columns, checked
// first (checkBatched); per thread count, slice each, a warm-up round, then
// rounds of the three in turn (in order, then reversed), each a run of every
// K's batch on that many threads at once; a kernel's figure in a round is
// its ns per 32 weights per column per thread, the Ks weighted by the
// shapes' weights.
func (s *session) measureBatched(f ckern.Features, slice time.Duration) (*BatchedResult, error) {
	o := s.o
	res := &BatchedResult{Columns: BatchColumns, PanelRows: gemmPanelRows, GroupRows: gemmGroupRows}
	g, why := pickGemm(o.Build, f)
	if why != "" {
		res.NotRun = why
		return res, nil
	}
	ks := batchKernels(g, f, s.file, o.F32)
	res.Gemm, res.NativeKernel, res.TQ2Kernel, res.FileKernel = g.Name, ks[0].Name, ks[1].Name, ks[2].Name
	s.progress("batched kernel (prompts, %d columns), data in cache", BatchColumns)
	rng := rand.New(rand.NewPCG(o.Seed, 0xba7c))
	var parts []*batchPart
	byK := map[int]*batchPart{}
	maxOut := 0
	for _, sh := range o.Shapes {
		p := byK[sh.K]
		if p == nil {
			m, err := genMatrix(rng, Shape{K: sh.K, Rows: batchRows(sh.K)}, o.Z, !o.F32)
			if err != nil {
				return nil, err
			}
			p = &batchPart{m: m, c: newCols(rng, sh.K, BatchColumns)}
			if err := checkBatched(ks, p.m, p.c); err != nil {
				return nil, fmt.Errorf("batched results wrong before timing (a bug): %w", err)
			}
			byK[sh.K], parts = p, append(parts, p)
			res.Shapes = append(res.Shapes, m.Shape)
			maxOut = max(maxOut, BatchColumns*m.Rows)
		}
		p.weights += float64(sh.K) * float64(sh.Rows)
	}
	var total float64
	for _, p := range parts {
		total += p.weights
	}
	outs := make([][]float32, slices.Max(o.Threads))
	for i := range outs {
		outs[i] = make([]float32, maxOut)
	}
	// round is kernel k's ns per 32 weights per column per thread at nth
	// threads, the parts weighted
	round := func(k batchKernel, nth int) float64 {
		var ns float64
		for _, p := range parts {
			d := parallel(nth, func(ith int) { k.run(p.m, p.c, outs[ith]) })
			ns += p.weights / total * float64(d.Nanoseconds()) / (float64(p.m.Rows) * float64(p.m.K) * float64(p.c.n) / 32)
		}
		return ns
	}
	for _, t := range o.Threads {
		s.progress("batched kernel at %d thread(s)", t)
		t0 := time.Now()
		for _, k := range ks {
			round(k, t)
		}
		n := repeats(slice, time.Since(t0), 3, 31)
		ns := alternated(n, len(ks), func(i int) float64 { return round(ks[i], t) })
		res.Threads = append(res.Threads, batchedThreads(t, ns, s.res.Rule.Layout))
	}
	return res, nil
}

// batchedThreads is the result at t threads of the rounds' figures
// ns[kernel][round] (kernels as batchKernels orders them).
func batchedThreads(t int, ns [][]float64, rule string) BatchedThreads {
	n := len(ns[0])
	ratios, nat, tq := make([]float64, n), make([]float64, n), make([]float64, n)
	for r := range n {
		ratios[r] = ns[1][r] / ns[0][r]
		nat[r] = ns[2][r] / ns[0][r]
		tq[r] = ns[2][r] / ns[1][r]
	}
	bt := BatchedThreads{Threads: t, NativeNs32: Summarize(ns[0]), TQ2Ns32: Summarize(ns[1]), FileNs32: Summarize(ns[2]),
		NativeVsFile: Summarize(nat), TQ2VsFile: Summarize(tq), Ratios: ratios, Verdict: Decide(ratios), RuleLayout: rule}
	bt.Agrees = bt.Verdict.Winner == rule
	return bt
}
