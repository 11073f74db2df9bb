package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gguf-bitcos/gguf-bitcos/format"
)

// The CUDA device functions (kernels/cuda/bitcos_cuda.cuh) run on the CPU:
// kernels/cuda/harness compiles them with g++ through a small CUDA shim and
// runs them over the kernel's geometry (32 simulated lanes per row, ggml's
// warp scan and reductions transcribed); the results must equal
// VecDotQ8_1CUDA bit for bit. No GPU and no CUDA toolkit are needed.

var cudaSources = []string{
	filepath.Join("cuda", "bitcos_cuda.cuh"),
	filepath.Join("cuda", "harness", "cuda_shim.h"),
	filepath.Join("cuda", "harness", "harness.cpp"),
	filepath.Join("internal", "harness", "harness_io.h"),
}

// buildCudaHarness compiles the harness with extra -D flags (the mutations).
func buildCudaHarness(t *testing.T, out string, defs ...string) {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build kernels/cuda/harness")
	}
	// read the sources here so that go test's cache knows them (g++ reads them
	// in another process: an edit would otherwise give a cached PASS)
	for _, f := range cudaSources {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"-std=c++17", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
		"-Wno-unknown-pragmas"}, defs...)
	args = append(args, filepath.Join("cuda", "harness", "harness.cpp"), "-o", out)
	if b, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		t.Fatalf("building the CUDA harness %v: %v\n%s", defs, err, b)
	}
}

// cudaMmvDefault is the header's default geometry (BITCOS_CUDA_MMV_WARPS and
// _SEGMENTS: a harness built without -D runs it, and TestCudaMatVecGeometry
// fails if they disagree); cudaGeometries, every geometry the harness checks
// the mat-vec in, with the -D flags that build it.
var cudaMmvDefault = CudaMmv{Warps: 1}

// The paired geometry (steps in pairs under one scan; activations staged in
// shared memory or not) keeps the one-warp order: its reference is CudaMmv{Warps: 1}.
var cudaGeometries = []struct {
	name string
	g    CudaMmv
	defs []string
}{
	{"warps=1", CudaMmv{Warps: 1}, []string{"-DBITCOS_CUDA_MMV_WARPS=1"}},
	{"warps=2", CudaMmv{Warps: 2}, []string{"-DBITCOS_CUDA_MMV_WARPS=2"}},
	{"warps=4", CudaMmv{Warps: 4}, []string{"-DBITCOS_CUDA_MMV_WARPS=4"}},
	{"warps=8", CudaMmv{Warps: 8}, []string{"-DBITCOS_CUDA_MMV_WARPS=8"}},
	{"segments", CudaMmv{Warps: 1, Segments: true}, []string{"-DBITCOS_CUDA_MMV_SEGMENTS=1"}},
	{"pairs,staged", CudaMmv{Warps: 1}, []string{"-DBITCOS_CUDA_MMV_PAIRS=1"}},
	{"pairs", CudaMmv{Warps: 1}, []string{"-DBITCOS_CUDA_MMV_PAIRS=2"}},
	{"pairs,staged,16 table copies", CudaMmv{Warps: 1}, []string{"-DBITCOS_CUDA_MMV_PAIRS=1", "-DBITCOS_CUDA_TABLE_COPIES=16"}},
	{"pairs,staged,32 table copies", CudaMmv{Warps: 1}, []string{"-DBITCOS_CUDA_MMV_PAIRS=1", "-DBITCOS_CUDA_TABLE_COPIES=32"}},
}

// cudaCase: a BITCOS matrix from the real encoder, ncols activation columns
// (floats and their QuantizeQ8_1CUDA blocks).
type cudaCase struct {
	m *testRows
	z float64
	x []float32   // ncols * k
	y []BlockQ8_1 // ncols * k/32
}

func (c *cudaCase) ncols() int { return len(c.x) / c.m.k }

// cudaZs: the zero densities every row length is run at; every third row of
// each matrix is all zero whatever z.
var cudaZs = []float64{0, 0.15, 0.3, 0.45, 0.6}

// cudaCases: syclKs (24 row lengths, 256..32768, odd block counts among them)
// x cudaZs, odd row counts 3..7, fp16 scales per 256 weights with zero (+0,
// -0) and subnormal blocks, or (every fourth matrix) a per-tensor f32 scale,
// or (every fourth, from the second) fp16 scales per 64 weights (a Q2_0
// source), 1 to 3 columns.
func cudaCases(t testing.TB, seed uint64, ks []int) []*cudaCase {
	rng := rand.New(rand.NewPCG(seed, 24))
	var cases []*cudaCase
	for i, k := range ks {
		for j, z := range cudaZs {
			n := i*len(cudaZs) + j
			rows := max(3, min(7, 24000/k)) | 1
			var m *testRows
			if n%4 == 1 {
				m = makeRows64(t, rng, k, rows, []float64{z, 1, z})
			} else {
				m = makeRows(t, rng, k, rows, []float64{z, 1, z}, n%4 == 3)
			}
			ncols := 1 + n%3
			x := syclActivations(rng, k, ncols)
			for b := range len(x) / QK8_1 { // now and then an all-zero q8_1 block
				if rng.IntN(16) == 0 {
					clear(x[b*QK8_1 : (b+1)*QK8_1])
				}
			}
			y := make([]BlockQ8_1, len(x)/QK8_1)
			QuantizeQ8_1CUDA(x, y)
			cases = append(cases, &cudaCase{m: m, z: z, x: x, y: y})
		}
	}
	return cases
}

func q81Bytes(y []BlockQ8_1) []byte {
	if len(y) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&y[0])), len(y)*int(unsafe.Sizeof(y[0])))
}

func writeCudaCases(w io.Writer, cases []*cudaCase) error {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("BCCU")
	b.Write(le.AppendUint32(nil, uint32(len(cases))))
	for _, c := range cases {
		if err := writeHarnessRows(&b, c.m, int32(c.ncols())); err != nil {
			return err
		}
		b.Write(q81Bytes(c.y))
		if err := binary.Write(&b, le, c.x); err != nil {
			return err
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

type cudaResult struct {
	dot []float32 // ncols * rows
	q81 []byte    // the harness's quantize_q8_1 of x
	q20 []byte    // bitcos_cuda_chunk_to_q2_0's Q2_0 blocks (rows * k/64 * 18; unit scales with an f32 scale)
	deq []float32 // bitcos_cuda_chunk_to_float's rows (rows * k)
}

// runCudaHarness runs the cases; it returns the nibble table and the results,
// or the harness's failure.
func runCudaHarness(t *testing.T, harness string, cases []*cudaCase) ([256]uint32, []cudaResult, error) {
	t.Helper()
	var table [256]uint32
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	var buf bytes.Buffer
	if err := writeCudaCases(&buf, cases); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(harness, in, out).CombinedOutput(); err != nil {
		return table, nil, fmt.Errorf("harness: %w\n%s", err, b)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(raw)
	le := binary.LittleEndian
	if err := binary.Read(r, le, &table); err != nil {
		t.Fatal(err)
	}
	var res []cudaResult
	for _, c := range cases {
		cr := cudaResult{dot: make([]float32, c.ncols()*c.m.rows), q81: make([]byte, len(q81Bytes(c.y)))}
		if err := binary.Read(r, le, cr.dot); err != nil {
			t.Fatalf("case k=%d: %v", c.m.k, err)
		}
		if _, err := io.ReadFull(r, cr.q81); err != nil {
			t.Fatalf("case k=%d: %v", c.m.k, err)
		}
		cr.q20 = make([]byte, c.m.rows*c.m.k/64*18)
		if _, err := io.ReadFull(r, cr.q20); err != nil {
			t.Fatalf("case k=%d: %v", c.m.k, err)
		}
		cr.deq = make([]float32, c.m.rows*c.m.k)
		if err := binary.Read(r, le, cr.deq); err != nil {
			t.Fatalf("case k=%d: %v", c.m.k, err)
		}
		res = append(res, cr)
	}
	if r.Len() != 0 {
		t.Fatal("trailing harness output")
	}
	return table, res, nil
}

// cudaDotMismatches counts the dot products that differ from VecDotQ8_1CUDA
// in geometry g in any bit, reporting the first few.
func cudaDotMismatches(t *testing.T, cases []*cudaCase, res []cudaResult, report int, g CudaMmv) int {
	t.Helper()
	bad := 0
	for i, c := range cases {
		m, nb := c.m, c.m.k/QK8_1
		for col := range c.ncols() {
			y := c.y[col*nb : (col+1)*nb]
			for r := range m.rows {
				want := VecDotQ8_1CUDA(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.scaleGroup(), m.d32, y, g)
				got := res[i].dot[col*m.rows+r]
				if math.Float32bits(got) != math.Float32bits(want) {
					if bad < report {
						t.Errorf("%+v k=%d z=%v rows=%d col %d row %d: harness %v (%#x), VecDotQ8_1CUDA %v (%#x)",
							g, m.k, c.z, m.rows, col, r, got, math.Float32bits(got), want, math.Float32bits(want))
					}
					bad++
				}
			}
		}
	}
	return bad
}

// cudaQ2_0 is the Go encoder's Q2_0 (format.Q2_0, the bytes of ggml's
// quantize_row_q2_0_ref) of the case's ternary values, each 64-weight block
// taking its own fp16 scale (scales per 64: a Q2_0 source's bytes) or that of
// its 256-block, or 1.0 (0x3c00) with an f32 scale.
func cudaQ2_0(t *testing.T, m *testRows) []byte {
	t.Helper()
	per64 := make([]uint16, m.rows*m.k/64)
	for i := range per64 {
		per64[i] = 0x3c00
		if m.d16 != nil {
			per64[i] = m.d16[i*64/m.scaleGroup()]
		}
	}
	want := make([]byte, m.rows*m.k/64*18)
	if err := format.Q2_0.Encode(m.p, &format.Scales{Group: 64, F16: per64}, want); err != nil {
		t.Fatal(err)
	}
	return want
}

// cudaQ2_0Mismatches counts the cases whose Q2_0 decode differs from cudaQ2_0
// in any byte, reporting the first few; it also returns the number of cases
// and Q2_0 blocks compared.
func cudaQ2_0Mismatches(t *testing.T, cases []*cudaCase, res []cudaResult, report int) (bad, n, blocks int) {
	t.Helper()
	for i, c := range cases {
		n++
		want := cudaQ2_0(t, c.m)
		blocks += len(want) / 18
		if j := firstDiff(res[i].q20, want); j >= 0 {
			if bad < report {
				t.Errorf("k=%d z=%v rows=%d: Q2_0 byte %d (block %d, offset %d) is %#02x, Q2_0 encoder %#02x",
					c.m.k, c.z, c.m.rows, j, j/18, j%18, res[i].q20[j], want[j])
			}
			bad++
		}
	}
	return bad, n, blocks
}

// cudaFloatMismatches counts the cases whose float decode (GET_ROWS) differs
// from DequantizeRow in any bit, reporting the first few.
func cudaFloatMismatches(t *testing.T, cases []*cudaCase, res []cudaResult, report int) int {
	t.Helper()
	bad := 0
	for i, c := range cases {
		m := c.m
		want := make([]float32, m.k)
	rows:
		for r := range m.rows {
			DequantizeRow(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.scaleGroup(), m.d32, want)
			for j, w := range want {
				if got := res[i].deq[r*m.k+j]; math.Float32bits(got) != math.Float32bits(w) {
					if bad < report {
						t.Errorf("k=%d z=%v rows=%d row %d weight %d: float decode %v (%#x), DequantizeRow %v (%#x)",
							m.k, c.z, m.rows, r, j, got, math.Float32bits(got), w, math.Float32bits(w))
					}
					bad++
					break rows
				}
			}
		}
	}
	return bad
}

// cudaTableEntry is the rule of bitcos_cuda_table: key = presence nibble p |
// signs s << 4, present weight i in byte i as +1 (0x01) or -1 (0xff), the
// k-th present weight taking sign bit k.
func cudaTableEntry(key int) uint32 {
	p, s := key&15, key>>4
	var v uint32
	for i := range 4 {
		if p>>i&1 != 0 {
			b := uint32(0x01)
			if s&1 != 0 {
				b = 0xff
			}
			v |= b << (8 * i)
			s >>= 1
		}
	}
	return v
}

func TestCudaKernelHarness(t *testing.T) {
	cases := cudaCases(t, 1, syclKs)
	for _, geo := range cudaGeometries {
		t.Run(geo.name, func(t *testing.T) { cudaKernelHarness(t, cases, geo.g, geo.defs) })
	}
}

// cudaKernelHarness: the harness built for mat-vec geometry g (defs).
func cudaKernelHarness(t *testing.T, cases []*cudaCase, g CudaMmv, defs []string) {
	harness := filepath.Join(t.TempDir(), "harness")
	buildCudaHarness(t, harness, defs...)
	table, res, err := runCudaHarness(t, harness, cases)
	if err != nil {
		t.Fatal(err)
	}
	for key, got := range table {
		if want := cudaTableEntry(key); got != want {
			t.Fatalf("bitcos_cuda_table[%#x] = %#08x, want %#08x", key, got, want)
		}
	}
	if bad := cudaDotMismatches(t, cases, res, 5, g); bad != 0 {
		t.Fatalf("%d dot products differ from VecDotQ8_1CUDA", bad)
	}
	dots, weights, zeroRows := 0, 0, 0
	for i, c := range cases {
		dots += c.ncols() * c.m.rows
		weights += c.ncols() * c.m.rows * c.m.k
		zeroRows += (c.m.rows + 1) / 3
		if want := q81Bytes(c.y); !bytes.Equal(res[i].q81, want) {
			for j := range want {
				if res[i].q81[j] != want[j] {
					t.Fatalf("k=%d: q8_1 byte %d (block %d, offset %d): quantize.cu transcription %#x, QuantizeQ8_1CUDA %#x",
						c.m.k, j, j/36, j%36, res[i].q81[j], want[j])
				}
			}
		}
	}
	bad, nq, blocks := cudaQ2_0Mismatches(t, cases, res, 5)
	if bad != 0 {
		t.Fatalf("%d of %d Q2_0 decodes differ from the Q2_0 encoder", bad, nq)
	}
	if bad := cudaFloatMismatches(t, cases, res, 5); bad != 0 {
		t.Fatalf("%d of %d float decodes differ from DequantizeRow", bad, len(cases))
	}
	per64 := 0
	for _, c := range cases {
		if c.m.d16 != nil && c.m.scaleGroup() == 64 {
			per64++
		}
	}
	if per64 == 0 {
		t.Fatal("no matrix with fp16 scales per 64 weights")
	}
	t.Logf("%d row lengths x %d zero densities = %d matrices (%d with fp16 scales per 64, %d all-zero rows), %d dot products over %d weights "+
		"in geometry %+v: bit-exact; nibble table and q8_1 quantization bit-exact; Q2_0 decode of the %d matrices "+
		"(%d blocks; unit scales for the f32-scaled ones) byte-exact; float decode of all %d matrices bit-exact",
		len(syclKs), len(cudaZs), len(cases), per64, zeroRows, dots, weights, g, nq, blocks, len(cases))
}

// TestCudaBrokenKernelFails: the comparison catches a broken cursor advance
// (BITCOS_CUDA_MUTATE_CURSOR=1: the sign window moves by 4 per nibble; =2: a
// lane starts at its inclusive prefix; =3: a thread leaves out the earlier
// warps of its row's step, with 4 warps per row; =4: a lane's cursor stays put
// along its run, in the segmented geometry; =5: the second step of a pair
// leaves out the first's total, in the paired geometry), staged quants read
// without their swizzle (BITCOS_CUDA_MUTATE_STAGE=1), a table kept in 32
// copies read with half its stride (BITCOS_CUDA_MUTATE_TABLE=1) and another float order
// (BITCOS_CUDA_MUTATE_ORDER=1: fmaf), in the default geometry and the others.
// Row lengths up to 9216 take the segmented and paired geometries past one step.
func TestCudaBrokenKernelFails(t *testing.T) {
	cases := cudaCases(t, 2, []int{256, 768, 2560, 6912, 9216})
	total := 0
	for _, c := range cases {
		total += c.ncols() * c.m.rows
	}
	seg := CudaMmv{Warps: 1, Segments: true}
	const pairs = " -DBITCOS_CUDA_MMV_PAIRS=1" // the paired geometry on staged activations (its order: Warps 1)
	for _, tc := range []struct {
		def     string
		g       CudaMmv
		decodes bool // whether the decodes (one warp per row, no float sum) must break too
	}{
		{"-DBITCOS_CUDA_MUTATE_CURSOR=1", cudaMmvDefault, true},
		{"-DBITCOS_CUDA_MUTATE_CURSOR=2", cudaMmvDefault, true},
		{"-DBITCOS_CUDA_MUTATE_CURSOR=3", CudaMmv{Warps: 4}, false},
		{"-DBITCOS_CUDA_MUTATE_ORDER=1", cudaMmvDefault, false},
		{"-DBITCOS_CUDA_MUTATE_CURSOR=2", seg, true},
		{"-DBITCOS_CUDA_MUTATE_CURSOR=4", seg, false},
		{"-DBITCOS_CUDA_MUTATE_CURSOR=5" + pairs, CudaMmv{Warps: 1}, false},
		{"-DBITCOS_CUDA_MUTATE_STAGE=1" + pairs, CudaMmv{Warps: 1}, false},
		{"-DBITCOS_CUDA_MUTATE_ORDER=1" + pairs, CudaMmv{Warps: 1}, false},
		{"-DBITCOS_CUDA_MUTATE_TABLE=1 -DBITCOS_CUDA_TABLE_COPIES=32" + pairs, CudaMmv{Warps: 1}, false},
	} {
		defs := append(strings.Fields(tc.def), fmt.Sprintf("-DBITCOS_CUDA_MMV_WARPS=%d", tc.g.Warps))
		if tc.g.Segments {
			defs = append(defs, "-DBITCOS_CUDA_MMV_SEGMENTS=1")
		}
		name := fmt.Sprintf("%s %+v", tc.def, tc.g)
		harness := filepath.Join(t.TempDir(), "harness")
		buildCudaHarness(t, harness, defs...)
		_, res, err := runCudaHarness(t, harness, cases)
		if err != nil {
			// a broken cursor may also read past the sign stream's guard page
			t.Logf("%s: the harness fails: %.80s", name, err)
			continue
		}
		bad := cudaDotMismatches(t, cases, res, 0, tc.g)
		if bad == 0 {
			t.Fatalf("%s: no dot product differs from VecDotQ8_1CUDA: the comparison cannot fail", name)
		}
		qbad, nq, _ := cudaQ2_0Mismatches(t, cases, res, 0)
		fbad := cudaFloatMismatches(t, cases, res, 0)
		if !tc.decodes {
			if qbad != 0 || fbad != 0 {
				t.Fatalf("%s: %d of %d Q2_0 and %d float decodes differ, though the mutation is the mat-vec's", name, qbad, nq, fbad)
			}
		} else if qbad == 0 || fbad == 0 {
			t.Fatalf("%s: %d Q2_0 and %d float decodes differ: a comparison cannot fail", name, qbad, fbad)
		}
		t.Logf("%s: %d of %d dot products, %d of %d Q2_0 and %d of %d float decodes differ, as they must",
			name, bad, total, qbad, nq, fbad, len(cases))
	}
}

// hipccCmd runs hipcc for AMD (HIP_PLATFORM=amd): where the CUDA toolkit is
// installed too, hipcc would otherwise pick nvcc for these AMD compile checks.
func hipccCmd(hipcc string, args ...string) *exec.Cmd {
	cmd := exec.Command(hipcc, args...)
	cmd.Env = append(os.Environ(), "HIP_PLATFORM=amd")
	return cmd
}

// TestCudaHeaderHipcc compiles the header as HIP device code (the AMD side of
// ggml-cuda) when hipcc is installed.
func TestCudaHeaderHipcc(t *testing.T) {
	hipcc, err := exec.LookPath("hipcc")
	if err != nil {
		t.Skip("no hipcc (Debian: apt-get install hipcc): the header's HIP compile check did not run")
	}
	hdr, err := filepath.Abs(filepath.Join("cuda", "bitcos_cuda.cuh"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(hdr); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "check.cpp")
	// ggml-cuda's common.cuh provides block_q8_1 and ggml_cuda_dp4a; this
	// stands in for it (gfx906's sdot4, as ggml-cuda uses there)
	code := `#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <cstdint>
struct block_q8_1 { half2 ds; int8_t qs[32]; };
struct block_q2_0 { half d; uint8_t qs[16]; };
static __device__ __forceinline__ int ggml_cuda_dp4a(const int a, const int b, int c) {
    return __builtin_amdgcn_sdot4(a, b, c, false);
}
#include "` + hdr + `"
__global__ void bitcos_check(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16,
                             const float * d32, const block_q8_1 * y, float * out, int k) {
    const int nchunks = k / BITCOS_CUDA_CHUNK;
    const int lane = threadIdx.x % BITCOS_CUDA_LANES;
    uint32_t cur;
    const uint32_t * sw = bitcos_cuda_row_signs(signs, rows[blockIdx.x], cur);
    const uint32_t m = bitcos_cuda_word(bitmap + (size_t) blockIdx.x * nchunks, lane, nchunks);
    const int pc = __popc(m);
    out[blockIdx.x * 32 + lane] = bitcos_cuda_vec_dot_chunk(0.0f, bitcos_cuda_table, m, sw,
        bitcos_cuda_lane_pos(cur, pc, pc), y + lane, bitcos_cuda_scale(d16, BITCOS_CUDA_SCALE_SHIFT_256, bitcos_cuda_row_d32(d16, d32), lane));
}
__global__ void bitcos_check_pairs(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16,
                                   const float * d32, const block_q8_1 * y, float * out, int k) {
    __shared__ int4 staged[9 * 64 / 4];
    const int nchunks = k / BITCOS_CUDA_CHUNK;  // k = 2048 here
    const int lane = threadIdx.x % BITCOS_CUDA_LANES;
    bitcos_cuda_stage_chunk((uint32_t *) staged, nchunks, lane, y + lane);
    bitcos_cuda_stage_chunk((uint32_t *) staged, nchunks, lane + 32, y + lane + 32);
    __syncthreads();
    uint32_t cur;
    const uint32_t * sw = bitcos_cuda_row_signs(signs, rows[blockIdx.x], cur);
    const uint32_t m0 = bitcos_cuda_word(bitmap + (size_t) blockIdx.x * nchunks, lane, nchunks);
    const uint32_t m1 = bitcos_cuda_word(bitmap + (size_t) blockIdx.x * nchunks, lane + 32, nchunks);
    const int pc0 = __popc(m0), pc1 = __popc(m1);
    const uint32_t incl = (uint32_t) bitcos_cuda_pair_pack(pc0, pc1);
    const half * d16_r = d16 + (size_t) blockIdx.x * (k / 256);
    const float d32v = bitcos_cuda_row_d32(d16_r, d32);
    float sumf = bitcos_cuda_vec_dot_chunk_staged(0.0f, bitcos_cuda_table, m0, sw, bitcos_cuda_pair_pos0(cur, incl, pc0),
        (const uint32_t *) staged, nchunks, lane, lane, bitcos_cuda_scale(d16_r, BITCOS_CUDA_SCALE_SHIFT_256, d32v, lane));
    sumf = bitcos_cuda_vec_dot_chunk_staged(sumf, bitcos_cuda_table, m1, sw, bitcos_cuda_pair_pos1(cur, incl, incl, pc1),
        (const uint32_t *) staged, nchunks, lane + 32, lane, bitcos_cuda_scale(d16_r, BITCOS_CUDA_SCALE_SHIFT_256, d32v, lane + 32));
    out[blockIdx.x * 32 + lane] = sumf + (float) bitcos_cuda_pair_next(cur, incl);
}
__global__ void bitcos_check_q2_0(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16,
                                  block_q2_0 * dst, int k) {
    const int nchunks = k / BITCOS_CUDA_CHUNK;
    const int lane = threadIdx.x % BITCOS_CUDA_LANES;
    uint32_t cur;
    const uint32_t * sw = bitcos_cuda_row_signs(signs, rows[blockIdx.x], cur);
    const uint32_t m = bitcos_cuda_word(bitmap + (size_t) blockIdx.x * nchunks, lane, nchunks);
    const int pc = __popc(m);
    bitcos_cuda_chunk_to_q2_0(dst + (size_t) blockIdx.x * (k / 64), bitcos_cuda_table, m, sw,
        bitcos_cuda_lane_pos(cur, pc, pc), d16 + (size_t) blockIdx.x * (k / 256), BITCOS_CUDA_SCALE_SHIFT_256, lane);
}
`
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := hipccCmd(hipcc, "-c", "--offload-arch=gfx906", "--cuda-device-only", "-O3", "-Wall", "-Werror",
		src, "-o", filepath.Join(dir, "check.o"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hipcc: %v\n%s", err, b)
	}
	t.Logf("hipcc -c --offload-arch=gfx906 --cuda-device-only: the header compiles as HIP device code (mat-vec, paired and staged, Q2_0 decode)")
}
