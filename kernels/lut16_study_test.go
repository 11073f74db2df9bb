package kernels

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// docs/studies/lut16 keeps a measured study kernel (a multi-row table
// lookup, not in the patch). TestLUT16Study builds it against kernels/c
// with its own script and runs its bit-exactness test (run.sh without
// "bench"), so the study keeps compiling and agreeing with
// bitcos_vec_dot_q8_K_tq2order as kernels/c changes.
func TestLUT16Study(t *testing.T) {
	if runtime.GOARCH != "amd64" || !cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.FMA3, cpuid.F16C) {
		t.Skip("the lut16 study needs an amd64 CPU with AVX2, BMI2, FMA and F16C")
	}
	for _, tool := range []string{"bash", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s to build docs/studies/lut16", tool)
		}
	}
	study := filepath.Join("..", "docs", "studies", "lut16")
	// read the sources here so that go test's cache knows them (gcc reads
	// them in another process: an edit would otherwise give a cached PASS)
	var srcs []string
	for _, pat := range []string{filepath.Join(study, "*"), "c/*.c", "c/*.h", "c/bench/*.c", "c/bench/*.h"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, m...)
	}
	for _, f := range srcs {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", filepath.Join(study, "run.sh"))
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("docs/studies/lut16/run.sh: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte(" 0 mismatches")) {
		t.Fatalf("docs/studies/lut16/run.sh: no \"0 mismatches\" line:\n%s", out)
	}
	t.Logf("%s", bytes.TrimSpace(out))
}
