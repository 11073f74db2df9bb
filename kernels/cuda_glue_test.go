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
	src := os.Getenv("GGUF_BITCOS_LLAMA_SRC")
	if src == "" {
		t.Skip("set GGUF_BITCOS_LLAMA_SRC (llama.cpp with patches/ applied) to compile patch 0016's glue with hipcc")
	}
	cudaDir := filepath.Join(src, "ggml", "src", "ggml-cuda")
	// the tree must hold the glue as the series ships it
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

	// a warning in a BITCOS file fails the check (ggml's own headers warn under -Wall)
	ours := regexp.MustCompile(`(?m)^[^:\n]*bitcos[^:\n]*:\d+:\d+: (warning|error)`)
	compile := func(file, side string, defs ...string) (string, error) {
		a := append(append(append([]string{}, args...), defs...), side, file, "-o", filepath.Join(dir, "out.o"))
		b, err := hipccCmd(hipcc, a...).CombinedOutput()
		return string(b), err
	}
	// bitcos.cu also as the variant build of kernels/cuda/bench.sh (every mat-vec variant)
	variants := "-DGGML_BITCOS_CUDA_VARIANTS"
	for _, c := range []struct{ file, side, defs string }{
		{"bitcos.cu", "--cuda-device-only", ""},
		{"bitcos.cu", "--cuda-host-only", ""},
		{"bitcos.cu", "--cuda-device-only", variants},
		{"bitcos.cu", "--cuda-host-only", variants},
		{"ggml-cuda.cu", "--cuda-device-only", ""},
		{"ggml-cuda.cu", "--cuda-host-only", ""},
	} {
		out, err := compile(filepath.Join(cudaDir, c.file), c.side, strings.Fields(c.defs)...)
		if err != nil {
			t.Fatalf("hipcc %s %s %s: %v\n%s", c.side, c.defs, c.file, err, tail(out, 4000))
		}
		if m := ours.FindString(out); m != "" {
			t.Fatalf("hipcc %s %s %s warns in a BITCOS file: %s\n%s", c.side, c.defs, c.file, m, tail(out, 4000))
		}
	}

	// the check reaches the glue: a kernel calling a function the header lacks fails
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
	// a copy of bitcos.cu beside the broken header includes it ("" looks there first)
	bad := filepath.Join(dir, "bitcos.cu")
	if err := os.WriteFile(filepath.Join(dir, "bitcos-kernels.cuh"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, glue, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := compile(bad, "--cuda-device-only"); err == nil {
		t.Fatalf("bitcos.cu with a kernel calling an undeclared function compiled: the check cannot fail\n%s", tail(out, 2000))
	}
	t.Logf("patch 0016: bitcos.cu (default and variant builds) and ggml-cuda.cu compile as HIP (gfx906, host and device) without a warning in a BITCOS file; a broken copy fails")
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
