package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSYCLGlueSimSYCL runs patch 0008's glue, ggml-sycl/bitcos.cpp exactly
// as the patch adds it, under SimSYCL: sycl/gluecheck/common.hpp stands in
// for ggml-sycl's common.hpp (ggml-sycl itself needs icpx, oneMKL and dpct)
// and sycl/gluecheck/glue_check.cpp calls every entry point on BITCOS
// tensors in a ggml context. It needs SimSYCL (sycl_test.go), a llama.cpp
// source tree with the series applied (GGUF_BITCOS_LLAMA_SRC, for ggml's
// headers) and its build (GGUF_BITCOS_LLAMA_BIN, the directory holding
// libggml-base.so); it skips without them.
func TestSYCLGlueSimSYCL(t *testing.T) {
	prefix := simsyclPrefix(t)
	src, bin := os.Getenv("GGUF_BITCOS_LLAMA_SRC"), os.Getenv("GGUF_BITCOS_LLAMA_BIN")
	if src == "" || bin == "" {
		t.Skip("set GGUF_BITCOS_LLAMA_SRC (llama.cpp with patches/ applied) and GGUF_BITCOS_LLAMA_BIN (its build's bin/ with libggml-base.so) to run patch 0008's glue under SimSYCL")
	}
	for _, f := range []string{filepath.Join(src, "ggml", "include", "ggml-bitcos.h"), filepath.Join(bin, "libggml-base.so")} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%v (GGUF_BITCOS_LLAMA_SRC must have the series applied, GGUF_BITCOS_LLAMA_BIN must hold libggml-base.so)", err)
		}
	}

	// the glue as the patch ships it
	dir := t.TempDir()
	matches := seriesPatches(t)
	added := map[string]string{}
	for _, p := range matches {
		for path, content := range newFiles(t, p) {
			added[path] = content
		}
	}
	for _, f := range []string{"bitcos.cpp", "bitcos.hpp", "bitcos/bitcos_sycl.hpp"} {
		content, ok := added["ggml/src/ggml-sycl/"+f]
		if !ok {
			t.Fatalf("no patch adds ggml/src/ggml-sycl/%s", f)
		}
		out := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"common.hpp", "glue_check.cpp"} {
		b, err := os.ReadFile(filepath.Join("sycl", "gluecheck", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	exe := filepath.Join(dir, "glue_check")
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
		"-I" + dir, "-I" + filepath.Join(prefix, "include"),
		"-I" + filepath.Join(src, "ggml", "include"), "-I" + filepath.Join(src, "ggml", "src"),
		filepath.Join(dir, "glue_check.cpp"), filepath.Join(dir, "bitcos.cpp"),
		filepath.Join(prefix, "lib", "libsimsycl.a"), filepath.Join(prefix, "lib", "libenvpp.a"),
		filepath.Join(prefix, "lib", "libfmt.a"), "-lboost_context",
		"-L" + bin, "-lggml-base", "-Wl,-rpath," + bin, "-o", exe}
	if b, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		t.Fatalf("building the glue check: %v\n%s", err, b)
	}
	harness := filepath.Join(dir, "harness")
	buildSyclHarness(t, prefix, harness) // for its system files
	for _, sg := range []string{"16", "32"} {
		sys := filepath.Join(dir, "system"+sg+".json")
		if b, err := exec.Command(harness, "system", sys, sg).CombinedOutput(); err != nil {
			t.Fatalf("harness system: %v\n%s", err, b)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "SIMSYCL_SYSTEM="+sys)
		b, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(b), "glue OK") {
			t.Fatalf("glue check, sub-group %s: %v\n%s", sg, err, b)
		}
		t.Logf("sub-group %s (glue built for WARP_SIZE 16):\n%s", sg, b)
	}
}
