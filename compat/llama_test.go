package compat

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// llamaBin is a folder with binaries of llama.cpp built from the pin with
// patches/ applied ($GGUF_BITCOS_LLAMA_BIN, e.g. build/bin). Tests that need
// it skip without it: CI does not build llama.cpp.
func llamaBin(t *testing.T, tool string) string {
	dir := os.Getenv("GGUF_BITCOS_LLAMA_BIN")
	if dir == "" {
		t.Skip("GGUF_BITCOS_LLAMA_BIN is not set (a patched llama.cpp build's bin folder)")
	}
	p := filepath.Join(dir, tool)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", p, err)
	}
	return p
}

// TestGGUFSplitMerge: shards written by repack --split-max-size are merged
// by the real llama-gguf-split, and the merged file is the unsplit repack
// byte for byte but for the three split.* KVs llama-gguf-split --merge
// itself leaves in (split.no, split.tensors.count, and split.count = 0).
func TestGGUFSplitMerge(t *testing.T) {
	bin := llamaBin(t, "llama-gguf-split")
	dir := t.TempDir()
	s := modelgen.Small(ggufx.TypeTQ2_0, 60)
	s.NLayer = 4
	in := filepath.Join(dir, "m.gguf")
	if err := modelgen.Write(in, s); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "whole.gguf")
	if _, err := repack.Repack(in, repack.Options{Output: whole}); err != nil {
		t.Fatal(err)
	}
	rep, err := repack.Repack(in, repack.Options{Output: filepath.Join(dir, "sh.gguf"), Split: repack.SplitOptions{MaxBytes: 300 * 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Shards) < 2 {
		t.Fatalf("%d shards", len(rep.Shards))
	}
	merged := filepath.Join(dir, "merged.gguf")
	if out, err := exec.Command(bin, "--merge", rep.Shards[0], merged).CombinedOutput(); err != nil {
		t.Fatalf("llama-gguf-split --merge: %v\n%s", err, out)
	}
	got := withoutSplitKVs(t, merged)
	want, _ := os.ReadFile(whole)
	if !bytes.Equal(got, want) {
		t.Fatal("merged shards differ from the unsplit repack (split.* KVs aside)")
	}
}

// withoutSplitKVs returns the file rewritten without its split.* KVs.
func withoutSplitKVs(t *testing.T, path string) []byte {
	f, err := ggufx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := ggufx.HeaderFromFile(f)
	h.KVs = nil
	for _, kv := range f.KVs {
		if !strings.HasPrefix(kv.Key, "split.") {
			h.KVs = append(h.KVs, kv)
		}
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	w, err := ggufx.NewWriter(bw, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Tensors {
		if _, err := io.Copy(w, f.Section(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	bw.Flush()
	return buf.Bytes()
}
