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

// TestHeadEqualsLlamaQuantize quantizes a generated f16 model's whole head
// with the real llama-quantize and with repack --head, for each head type,
// and compares the tensors byte for byte (the committed golden fixtures
// hold only 64 rows).
func TestHeadEqualsLlamaQuantize(t *testing.T) {
	bin := llamaBin(t, "llama-quantize")
	dir := t.TempDir()
	for _, head := range []ggufx.GGMLType{ggufx.TypeF16, ggufx.TypeBF16, ggufx.TypeF32} {
		s := modelgen.Small(ggufx.TypeF16, 61)
		s.HeadType = head
		in := filepath.Join(dir, "m-"+head.String()+".gguf")
		if err := modelgen.Write(in, s); err != nil {
			t.Fatal(err)
		}
		for _, typ := range []string{"q8_0", "q6_K", "q4_K"} {
			ref := filepath.Join(dir, "ref.gguf")
			os.Remove(ref)
			cmd := exec.Command(bin, "--pure", "--token-embedding-type", typ, in, ref, "Q8_0", "1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("llama-quantize: %v\n%s", err, out)
			}
			ours := filepath.Join(dir, "ours.gguf")
			heads, _ := repack.HeadPlan(typ, "", "")
			if _, err := repack.Repack(in, repack.Options{Output: ours, Heads: heads}); err != nil {
				t.Fatal(err)
			}
			a, b := tensorBytes(t, ref, "token_embd.weight"), tensorBytes(t, ours, "token_embd.weight")
			if !bytes.Equal(a, b) {
				t.Fatalf("%s head from %v: repack differs from llama-quantize", typ, head)
			}
		}
	}
}

func tensorBytes(t *testing.T, path, name string) []byte {
	f, err := ggufx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i, ok := f.Tensor(name)
	if !ok {
		t.Fatalf("%s: no %s", path, name)
	}
	b, err := f.ReadTensor(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
