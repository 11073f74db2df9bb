package kernels

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/x448/float16"
)

// The SYCL kernels (kernels/sycl/bitcos_sycl.hpp) run on the CPU under
// SimSYCL, a SYCL 2020 simulator with real sub-groups. kernels/README.md
// ("SYCL") says how to install it; GGUF_BITCOS_SIMSYCL names the install
// prefix (default /opt/simsycl). Without it the tests skip.
const simsyclDefault = "/opt/simsycl"

func simsyclPrefix(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GGUF_BITCOS_SIMSYCL")
	if dir == "" {
		dir = simsyclDefault
	}
	for _, f := range []string{"include/sycl/sycl.hpp", "lib/libsimsycl.a", "lib/libenvpp.a", "lib/libfmt.a"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Skipf("SimSYCL not installed at %s (no %s; set GGUF_BITCOS_SIMSYCL, kernels/README.md says how to install it)", dir, f)
		}
	}
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++ to build the SimSYCL harness")
	}
	return dir
}

// buildSyclHarness compiles kernels/sycl/harness against SimSYCL, with extra
// -D flags (the deliberately broken builds).
func buildSyclHarness(t *testing.T, prefix, out string, defs ...string) {
	t.Helper()
	// read the sources here so that go test's cache knows them (g++ reads
	// them in another process: an edit would otherwise give a cached PASS)
	for _, f := range []string{filepath.Join("sycl", "bitcos_sycl.hpp"), filepath.Join("sycl", "harness", "harness.cpp"),
		filepath.Join("internal", "harness", "harness_io.h")} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"-std=c++20", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror",
		"-I" + filepath.Join(prefix, "include")}, defs...)
	args = append(args, filepath.Join("sycl", "harness", "harness.cpp"),
		filepath.Join(prefix, "lib", "libsimsycl.a"), filepath.Join(prefix, "lib", "libenvpp.a"),
		filepath.Join(prefix, "lib", "libfmt.a"), "-lboost_context", "-o", out)
	cmd := exec.Command("g++", args...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the SimSYCL harness %v: %v\n%s", defs, err, b)
	}
}

// runSyclHarness runs the cases on a simulated device with sub-group size
// sg, the kernels launched for sub-group size launch (0: sg). A non-zero
// launch also makes SimSYCL run the work-items in a shuffled order
// (SIMSYCL_SCHEDULE). SimSYCL switches work-items only at barriers and
// group operations, so it cannot expose every race: a missing barrier
// after the table fill, for one, goes unnoticed (checked), as every
// work-item fills its entries before its first group operation.
func runSyclHarness(t *testing.T, harness string, sg, launch int, cases []*syclCase) []syclResult {
	t.Helper()
	res, err := tryRunSyclHarness(t, harness, sg, launch, cases)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tryRunSyclHarness is runSyclHarness returning the harness's failure.
func tryRunSyclHarness(t *testing.T, harness string, sg, launch int, cases []*syclCase) ([]syclResult, error) {
	t.Helper()
	dir := t.TempDir()
	sys := filepath.Join(dir, fmt.Sprintf("system%d.json", sg))
	if b, err := exec.Command(harness, "system", sys, fmt.Sprint(sg)).CombinedOutput(); err != nil {
		t.Fatalf("harness system: %v\n%s", err, b)
	}
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	var buf bytes.Buffer
	if err := writeSyclCases(&buf, cases); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(harness, "run", in, out)
	cmd.Env = append(os.Environ(), "SIMSYCL_SYSTEM="+sys)
	if launch != 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("BITCOS_HARNESS_LAUNCH_SG=%d", launch), "SIMSYCL_SCHEDULE=shuffle:7")
	}
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("harness run (sub-group %d): %w\n%s", sg, err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, res, err := readSyclResults(f, cases)
	if err != nil {
		t.Fatal(err)
	}
	if int(got) != sg {
		t.Fatalf("SIMSYCL_SYSTEM asked for sub-group size %d, the kernels ran with %d", sg, got)
	}
	return res, nil
}

// syclDotMismatches counts the dot products that differ from VecDotQ8K in
// any bit (the kernel's float order is VecDotQ8K's: bit-exact is the claim).
func syclDotMismatches(t *testing.T, cases []*syclCase, res []syclResult, report int) int {
	bad := 0
	for i, c := range cases {
		m, nb := c.m, c.m.k/QK_K
		if m.d16 != nil && m.scaleGroup() != QK_K {
			continue // scales per 64: the GEMV does not take them (the harness writes zeros)
		}
		for col := range c.ncols() {
			y := c.y[col*nb : (col+1)*nb]
			for r := range m.rows {
				want := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
				got := res[i].dot[col*m.rows+r]
				if math.Float32bits(got) != math.Float32bits(want) {
					if bad < report {
						t.Errorf("k=%d rows=%d col %d row %d: SYCL dot %v, VecDotQ8K %v", m.k, m.rows, col, r, got, want)
					}
					bad++
				}
			}
		}
	}
	return bad
}

func TestSYCLKernelsSimSYCL(t *testing.T) {
	prefix := simsyclPrefix(t)
	harness := filepath.Join(t.TempDir(), "harness")
	buildSyclHarness(t, prefix, harness)
	cases := syclCases(t, 1)
	weights := 0
	for _, c := range cases {
		weights += c.m.k * c.m.rows
	}
	// sub-group sizes 16 and 32, then each launched as if for the other
	// size (a device that does not honour reqd_sub_group_size): every row
	// must still be computed, with the same bits
	for _, run := range []struct{ sg, launch int }{{16, 0}, {32, 0}, {32, 16}, {16, 32}} {
		name := fmt.Sprintf("subgroup%d", run.sg)
		if run.launch != 0 {
			name += fmt.Sprintf("_launched_for%d", run.launch)
		}
		t.Run(name, func(t *testing.T) {
			sg := run.sg
			res := runSyclHarness(t, harness, sg, run.launch, cases)
			if bad := syclDotMismatches(t, cases, res, 5); bad != 0 {
				t.Fatalf("%d dot products differ from VecDotQ8K", bad)
			}
			for i, c := range cases {
				checkSyclQuantize(t, c, res[i])
				checkSyclDequant(t, c, res[i])
			}
			t.Logf("sub-group %d: %d cases, %d weights, every dot product, Q8_K block and decoded weight bit-exact",
				sg, len(cases), weights)
		})
	}
}

// checkSyclQuantize: the device quantizer gives QuantizeQ8K's bytes.
func checkSyclQuantize(t *testing.T, c *syclCase, res syclResult) {
	t.Helper()
	want := q8KBytes(c.y)
	if !bytes.Equal(res.q8k, want) {
		for i := range want {
			if res.q8k[i] != want[i] {
				t.Fatalf("k=%d: Q8_K byte %d (block %d, offset %d): SYCL %#x, QuantizeQ8K %#x",
					c.m.k, i, i/292, i%292, res.q8k[i], want[i])
			}
		}
	}
}

// checkSyclDequant: the f32 decode, the f16 decode and GET_ROWS equal
// DequantizeRow bit for bit (f16: its value rounded to nearest even, exact
// for fp16 scales).
func checkSyclDequant(t *testing.T, c *syclCase, res syclResult) {
	t.Helper()
	m := c.m
	row := make([]float32, m.k)
	for r := range m.rows {
		DequantizeRow(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.scaleGroup(), m.d32, row)
		for j, want := range row {
			if got := res.deq[r*m.k+j]; math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("k=%d row %d weight %d: SYCL decode %v, DequantizeRow %v", m.k, r, j, got, want)
			}
			if got, want16 := res.deq16[r*m.k+j], float16.Fromfloat32(want).Bits(); got != want16 {
				t.Fatalf("k=%d row %d weight %d: SYCL f16 decode %#04x, want %#04x", m.k, r, j, got, want16)
			}
		}
	}
	for i, r := range c.idx {
		for j := range row {
			row[j] = 0
		}
		if r >= 0 && int(r) < m.rows {
			DequantizeRow(m.rowBitmap(int(r)), m.rowSigns(int(r)), m.rowScales(int(r)), m.scaleGroup(), m.d32, row)
		}
		for j, want := range row {
			if got := res.getRows[i*m.k+j]; math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("k=%d GET_ROWS index %d (row %d) weight %d: SYCL %v, want %v", m.k, i, r, j, got, want)
			}
		}
	}
}

// TestSYCLBrokenKernelFails: the comparison above catches a kernel whose
// sign cursor advances wrongly (BITCOS_SYCL_BREAK, a test hook of
// bitcos_sycl.hpp): per nibble by 4 instead of its popcount, or from an
// step's carried cursor that misses the last lane's word.
func TestSYCLBrokenKernelFails(t *testing.T) {
	prefix := simsyclPrefix(t)
	cases := syclCases(t, 2)
	total := 0
	for _, c := range cases {
		total += c.ncols() * c.m.rows
	}
	for _, brk := range []int{1, 2} {
		harness := filepath.Join(t.TempDir(), "harness")
		buildSyclHarness(t, prefix, harness, fmt.Sprintf("-DBITCOS_SYCL_BREAK=%d", brk))
		res := runSyclHarness(t, harness, 32, 0, cases)
		bad := syclDotMismatches(t, cases, res, 0)
		if bad == 0 {
			t.Fatalf("BITCOS_SYCL_BREAK=%d: no dot product differs from VecDotQ8K: the comparison cannot fail", brk)
		}
		t.Logf("BITCOS_SYCL_BREAK=%d: %d of %d dot products differ, as they must", brk, bad, total)
	}
	// =3: every sign window starts 64 bits late, so the last row's windows
	// run past the sign tensor's 8-byte tail, by at most 12 bytes: the
	// harness's guard page must stop the run (a read past the tensor would
	// otherwise go unnoticed)
	harness := filepath.Join(t.TempDir(), "harness")
	buildSyclHarness(t, prefix, harness, "-DBITCOS_SYCL_BREAK=3")
	if _, err := tryRunSyclHarness(t, harness, 32, 0, cases); err == nil {
		t.Fatal("BITCOS_SYCL_BREAK=3 read past the sign stream and the harness did not notice")
	} else {
		t.Logf("BITCOS_SYCL_BREAK=3 (reads past the signs): the harness fails: %.60s", err)
	}
}
