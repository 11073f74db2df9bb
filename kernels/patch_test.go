package kernels

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPatchCarriesKernels checks that the llama.cpp patch series adds the
// kernels of c/ byte for byte (c/ is the one source of truth; after editing
// it, regenerate it with patches/regen.sh).
func TestPatchCarriesKernels(t *testing.T) {
	matches := seriesPatches(t)
	added := map[string]string{} // path in llama.cpp -> content
	for _, p := range matches {
		for path, content := range newFiles(t, p) {
			added[path] = content
		}
	}
	// Every C source and header of kernels/c (not bench/) ships in the patch,
	// but the AVX-512 twin, a test aid (patches/regen.sh skips it too), and
	// bitcos_dequant.c, the harness's decode: llama.cpp decodes rows with
	// ggml_bitcos_to_float (ggml-quants.c, core 0001), ggml's reference.
	cs, _ := filepath.Glob(filepath.Join("c", "*.c"))
	hs, _ := filepath.Glob(filepath.Join("c", "*.h"))
	if len(cs) < 8 || len(hs) < 4 {
		t.Fatalf("kernels/c: found %d .c and %d .h files", len(cs), len(hs))
	}
	for _, f := range append(cs, hs...) {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_twin.c") || name == "bitcos_dequant.c" {
			continue
		}
		want, err := os.ReadFile(filepath.Join("c", name))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := added["ggml/src/ggml-cpu/bitcos/"+name]
		if !ok {
			t.Errorf("no patch adds ggml/src/ggml-cpu/bitcos/%s", name)
			continue
		}
		if got != string(want) {
			t.Errorf("the patch's ggml/src/ggml-cpu/bitcos/%s differs from kernels/c/%s: regenerate the series (patches/regen.sh)", name, name)
		}
	}
	// and nothing the series adds as a kernel file is gone from kernels/c (a
	// retired kernel must leave the series too)
	for path := range added {
		name := strings.TrimPrefix(path, "ggml/src/ggml-cpu/bitcos/")
		if name == path || !strings.HasPrefix(name, "bitcos_") {
			continue
		}
		if _, err := os.Stat(filepath.Join("c", name)); err != nil {
			t.Errorf("the series adds %s, which kernels/c no longer has: drop it from its patch (and its CMake line)", path)
		}
	}
}

// TestPatchCarriesVulkanShaders checks that the series adds the BITCOS shaders
// of vulkan/ to ggml-vulkan byte for byte (vulkan/ is their one source of
// truth; patches/regen.sh copies them into the patch that adds them).
func TestPatchCarriesVulkanShaders(t *testing.T) {
	matches := seriesPatches(t)
	added := map[string]string{} // path in llama.cpp -> content
	for _, p := range matches {
		for path, content := range newFiles(t, p) {
			added[path] = content
		}
	}
	var files []string
	for _, pat := range []string{"*.comp", "*.glsl"} {
		m, _ := filepath.Glob(filepath.Join("vulkan", pat))
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("kernels/vulkan: found %d shader files, want at least 4", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := added["ggml/src/ggml-vulkan/vulkan-shaders/"+name]
		if !ok {
			t.Errorf("no patch adds ggml/src/ggml-vulkan/vulkan-shaders/%s", name)
			continue
		}
		if got != string(want) {
			t.Errorf("the patch's ggml/src/ggml-vulkan/vulkan-shaders/%s differs from kernels/vulkan/%s: regenerate the series (patches/regen.sh)", name, name)
		}
	}
	// and no BITCOS shader the series adds is missing from vulkan/ (a shader
	// removed here must leave the patch too: regen.sh only copies)
	const dir = "ggml/src/ggml-vulkan/vulkan-shaders/"
	for path := range added {
		name := strings.TrimPrefix(path, dir)
		if name == path || !strings.Contains(name, "bitcos") {
			continue
		}
		if _, err := os.Stat(filepath.Join("vulkan", name)); err != nil {
			t.Errorf("the series adds %s, which kernels/vulkan does not have: remove it from the patch", path)
		}
	}
}

// newFiles returns the files a git format-patch file creates.
func newFiles(t *testing.T, patch string) map[string]string {
	f, err := os.Open(patch)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var path string
	var b strings.Builder
	inNew, inHunk := false, false
	flush := func() {
		if inNew && path != "" {
			out[path] = b.String()
		}
		path, inNew, inHunk = "", false, false
		b.Reset()
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
		case strings.HasPrefix(line, "new file mode"):
			inNew = true
		case inNew && strings.HasPrefix(line, "+++ b/"):
			path = strings.TrimPrefix(line, "+++ b/")
		case inNew && strings.HasPrefix(line, "@@"):
			inHunk = true
		case inNew && inHunk && strings.HasPrefix(line, "+"):
			b.WriteString(line[1:] + "\n")
		case inNew && inHunk && line == `\ No newline at end of file`:
			s := strings.TrimSuffix(b.String(), "\n")
			b.Reset()
			b.WriteString(s)
		}
	}
	flush()
	return out
}

// TestPatchCarriesDeviceHeaders: the device code of sycl/ and cuda/ (their
// one source of truth, run under SimSYCL by sycl_test.go and on the CPU
// harness by cuda_test.go) ships byte for byte in the series (patches 0008
// and 0016; patches/regen.sh copies them).
func TestPatchCarriesDeviceHeaders(t *testing.T) {
	added := map[string]string{}
	for _, p := range seriesPatches(t) {
		for path, content := range newFiles(t, p) {
			added[path] = content
		}
	}
	for _, c := range []struct{ dir, glob, into string }{
		{"sycl", "*.hpp", "ggml/src/ggml-sycl/bitcos/"},
		{"cuda", "*.cuh", "ggml/src/ggml-cuda/"},
	} {
		fs, _ := filepath.Glob(filepath.Join(c.dir, c.glob))
		if len(fs) == 0 {
			t.Fatalf("kernels/%s: no %s", c.dir, c.glob)
		}
		for _, f := range fs {
			name := filepath.Base(f)
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := added[c.into+name]
			if !ok {
				t.Errorf("no patch adds %s%s", c.into, name)
				continue
			}
			if got != string(want) {
				t.Errorf("the patch's %s%s differs from kernels/%s/%s: regenerate the series (patches/regen.sh)",
					c.into, name, c.dir, name)
			}
		}
	}
}

// seriesPatches lists the patch files of patches/series in its order (the
// core part, then the optional parts, in their directories).
func seriesPatches(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join("..", "patches", "series"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, filepath.Join("..", "patches", filepath.FromSlash(line)))
		}
	}
	if len(out) == 0 {
		t.Fatal("patches/series lists no patch")
	}
	return out
}
