package kernels

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCudaGlueHipcc compiles patch 0016's ggml-cuda glue (bitcos.cu with
// bitcos-kernels.cuh, and ggml-cuda.cu with its dispatch) as HIP code for gfx906, host and device
// sides, against ggml-cuda's real headers: the nearest thing to building
// ggml-cuda on a machine without the CUDA toolkit (nothing runs). Debian's
// hipcc 5.2 lacks what ggml-hip needs (HIP >= 6.1, hipBLAS, RCCL):
// cuda/hipstub declares those names (its README). It needs hipcc and a
// llama.cpp tree with the series applied (GGUF_BITCOS_LLAMA_SRC); it skips
// without them. A copy of the kernels that calls a function the header lacks
// must fail, so the compile is known to reach the glue.
func TestCudaGlueHipcc(t *testing.T) {
	hipcc, err := exec.LookPath("hipcc")
	if err != nil {
		t.Skip("no hipcc (Debian: apt-get install hipcc): patch 0016's HIP compile check did not run")
	}
	src, cudaDir := cudaGlueSrc(t, "hipcc")
	dir := t.TempDir()
	args := []string{"-std=c++17", "-x", "hip", "-c", "--offload-arch=gfx906", "-O1", "-Wall", "-DGGML_USE_HIP"}
	probe := filepath.Join(dir, "probe.cpp")
	if err := os.WriteFile(probe, []byte("#include <hip/hip_bf16.h>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hipccCmd(hipcc, "-x", "hip", "-fsyntax-only", "--cuda-host-only", probe).Run() != nil {
		stub, err := filepath.Abs(filepath.Join("cuda", "hipstub"))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "-I"+stub)
		t.Logf("hipcc has no hip/hip_bf16.h (HIP < 6): compiling with kernels/cuda/hipstub")
	}
	args = append(args, "-I"+filepath.Join(src, "ggml", "include"), "-I"+filepath.Join(src, "ggml", "src"), "-I"+cudaDir)

	compile := func(file, side string, defs ...string) (string, error) {
		a := append(append(append([]string{}, args...), defs...), side, file, "-o", filepath.Join(dir, "out.o"))
		b, err := hipccCmd(hipcc, a...).CombinedOutput()
		return string(b), err
	}
	// bitcos.cu also as the variant build of kernels/cuda/bench.sh (every mat-vec
	// variant), and kernels/cuda/microbench's timer of the variants
	variants := "-DGGML_BITCOS_CUDA_VARIANTS"
	microbench := cudaMicrobench(t)
	for _, c := range []struct{ file, side, defs string }{
		{"bitcos.cu", "--cuda-device-only", ""},
		{"bitcos.cu", "--cuda-host-only", ""},
		{"bitcos.cu", "--cuda-device-only", variants},
		{"bitcos.cu", "--cuda-host-only", variants},
		{"ggml-cuda.cu", "--cuda-device-only", ""},
		{"ggml-cuda.cu", "--cuda-host-only", ""},
		// the microbench uses the mat-vecs only: the other static kernels go unused
		{microbench, "--cuda-device-only", variants + " -Wno-unused-function"},
		{microbench, "--cuda-host-only", variants + " -Wno-unused-function"},
	} {
		f := c.file
		if !filepath.IsAbs(f) {
			f = filepath.Join(cudaDir, f)
		}
		out, err := compile(f, c.side, strings.Fields(c.defs)...)
		if err != nil {
			t.Fatalf("hipcc %s %s %s: %v\n%s", c.side, c.defs, c.file, err, tail(out, 4000))
		}
		if m := cudaGlueWarning.FindString(out); m != "" {
			t.Fatalf("hipcc %s %s %s warns in a BITCOS file: %s\n%s", c.side, c.defs, c.file, m, tail(out, 4000))
		}
	}

	cudaGlueBrokenCopyFails(t, cudaDir, dir, func(file string) (string, error) { return compile(file, "--cuda-device-only") })
	t.Logf("patch 0016: bitcos.cu (default and variant builds), ggml-cuda.cu and the microbench compile as HIP (gfx906, host and device) without a warning in a BITCOS file; a broken copy fails")
}

// cudaGlueWarning: a warning or error in a BITCOS file, as gcc/clang
// ("file:line:col: warning") or nvcc's front end ("file(line): warning")
// print it; ggml's own headers warn under -Wall, and do not count.
var cudaGlueWarning = regexp.MustCompile(`(?m)^[^:(\n]*bitcos[^:(\n]*(:\d+:\d+: |\(\d+\): )(warning|error)`)

// cudaGlueSrc: GGUF_BITCOS_LLAMA_SRC and its ggml-cuda folder, which must hold
// patch 0016's glue as the series ships it; skips without the variable.
func cudaGlueSrc(t *testing.T, tool string) (src, cudaDir string) {
	t.Helper()
	src = os.Getenv("GGUF_BITCOS_LLAMA_SRC")
	if src == "" {
		t.Skipf("set GGUF_BITCOS_LLAMA_SRC (llama.cpp with patches/ applied) to compile patch 0016's glue with %s", tool)
	}
	cudaDir = filepath.Join(src, "ggml", "src", "ggml-cuda")
	added := map[string]string{}
	for _, p := range seriesPatches(t) {
		for path, content := range newFiles(t, p) {
			added[path] = content
		}
	}
	for _, name := range []string{"bitcos.cu", "bitcos.cuh", "bitcos-kernels.cuh", "bitcos_cuda.cuh"} {
		got, err := os.ReadFile(filepath.Join(cudaDir, name))
		if err != nil {
			t.Skipf("%v (GGUF_BITCOS_LLAMA_SRC must have the series applied)", err)
		}
		if want, ok := added["ggml/src/ggml-cuda/"+name]; !ok || string(got) != want {
			t.Fatalf("%s in GGUF_BITCOS_LLAMA_SRC is not the series' (re-apply patches/series)", name)
		}
	}
	return src, cudaDir
}

// cudaMicrobench: kernels/cuda/microbench/mmv_bench.cu, absolute.
func cudaMicrobench(t *testing.T) string {
	t.Helper()
	f, err := filepath.Abs(filepath.Join("cuda", "microbench", "mmv_bench.cu"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// cudaGlueBrokenCopyFails: the compile reaches the glue. A copy of bitcos.cu
// in dir beside a bitcos-kernels.cuh that calls a function the header lacks
// ("" includes look there first) must fail to compile.
func cudaGlueBrokenCopyFails(t *testing.T, cudaDir, dir string, compile func(file string) (string, error)) {
	t.Helper()
	kern, err := os.ReadFile(filepath.Join(cudaDir, "bitcos-kernels.cuh"))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(kern), "bitcos_cuda_chunk_to_float(", "bitcos_cuda_chunk_to_float_gone(", 1)
	if broken == string(kern) {
		t.Fatal("bitcos-kernels.cuh does not call bitcos_cuda_chunk_to_float: update the mutation")
	}
	glue, err := os.ReadFile(filepath.Join(cudaDir, "bitcos.cu"))
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bitcos.cu")
	if err := os.WriteFile(filepath.Join(dir, "bitcos-kernels.cuh"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, glue, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := compile(bad); err == nil {
		t.Fatalf("bitcos.cu with a kernel calling an undeclared function compiled: the check cannot fail\n%s", tail(out, 2000))
	}
}

// TestCudaGlueNvcc compiles patch 0016's glue with nvcc for sm_90 (Hopper, the
// GPU it ran on): bitcos.cu in its default and variant builds and ggml-cuda.cu,
// as ggml-cuda builds them (fast math, extended lambdas), without a warning in a
// BITCOS file under -Wall -Wextra; nothing runs. CUDA 11 (Debian 12's non-free
// nvidia-cuda-toolkit) lacks the PDL device functions ggml calls on sm_90:
// kernels/cuda/microbench/pdl_stub.h stands in. It needs nvcc and
// GGUF_BITCOS_LLAMA_SRC; it skips without them. About a minute on two cores.
func TestCudaGlueNvcc(t *testing.T) {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("no nvcc (Debian 12: nvidia-cuda-toolkit from non-free): patch 0016's CUDA compile check did not run")
	}
	src, cudaDir := cudaGlueSrc(t, "nvcc")
	stub, err := filepath.Abs(filepath.Join("cuda", "microbench", "pdl_stub.h"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"-std=c++17", "-arch=sm_90", "-O1", "-use_fast_math", "--extended-lambda", "-Xcompiler", "-Wall,-Wextra",
		"-include", stub, "-I" + filepath.Join(src, "ggml", "include"), "-I" + filepath.Join(src, "ggml", "src"), "-I" + cudaDir}
	compile := func(file string, defs ...string) (string, error) {
		a := append(append(append([]string{}, args...), defs...), "-c", file, "-o", filepath.Join(dir, "out.o"))
		b, err := exec.Command(nvcc, a...).CombinedOutput()
		return string(b), err
	}
	microbench := cudaMicrobench(t)
	for _, c := range []struct{ file, defs string }{
		{"bitcos.cu", ""},
		{"bitcos.cu", "-DGGML_BITCOS_CUDA_VARIANTS"},
		{"ggml-cuda.cu", ""},
		{microbench, "-DGGML_BITCOS_CUDA_VARIANTS"},
	} {
		f := c.file
		if !filepath.IsAbs(f) {
			f = filepath.Join(cudaDir, f)
		}
		out, err := compile(f, strings.Fields(c.defs)...)
		if err != nil {
			t.Fatalf("nvcc %s %s: %v\n%s", c.defs, c.file, err, tail(out, 4000))
		}
		if m := cudaGlueWarning.FindString(out); m != "" {
			t.Fatalf("nvcc %s %s warns in a BITCOS file: %s\n%s", c.defs, c.file, m, tail(out, 4000))
		}
	}
	cudaGlueBrokenCopyFails(t, cudaDir, dir, func(file string) (string, error) { return compile(file) })
	t.Logf("patch 0016: bitcos.cu (default and variant builds), ggml-cuda.cu and the microbench compile with nvcc for sm_90 without a warning in a BITCOS file; a broken copy fails")
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
