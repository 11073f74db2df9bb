package compat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/llamatest"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// llamaBin is a folder with binaries of llama.cpp built from the pin with
// patches/ applied ($GGUF_BITCOS_LLAMA_BIN, e.g. build/bin). Tests that need
// it skip without it: CI does not build llama.cpp.
func llamaBin(t *testing.T, tool string) string {
	return llamatest.ToolIn(t, "GGUF_BITCOS_LLAMA_BIN", "a patched llama.cpp build's bin folder", tool)
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
			os.Remove(ours) // the previous round's: repack never replaces a file
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

// TestGreedyParity: generated llama models in TQ2_0 (and in Q2_0) and their BITCOS
// repacks generate the same greedy text in the patched llama-completion, at
// 1 and 2 threads, with and without mmap: a Mixtral-style MoE (its experts
// run through MUL_MAT_ID) and a dense model whose token embedding and output
// head are ternary too (token_embd runs through GET_ROWS, the reference
// decode). llama.cpp must report every repacked tensor as BITCOS, and the
// generation must not be one repeated token.
func TestGreedyParity(t *testing.T) {
	bin := llamaBin(t, "llama-completion")
	moe := modelgen.Small(ggufx.TypeTQ2_0, 1)
	moe.Arch, moe.Experts, moe.NLayer = modelgen.ArchLlama, 4, 4
	head := modelgen.Small(ggufx.TypeTQ2_0, 2)
	head.Arch, head.NLayer, head.HeadType, head.Output = modelgen.ArchLlama, 4, ggufx.TypeTQ2_0, true
	// the same from Q2_0 sources (fp16 scales per 64 weights: the CPU runs
	// them as Q2_0, GET_ROWS included)
	moeQ2, headQ2 := moe, head
	moeQ2.Type, moeQ2.Seed = ggufx.TypeQ2_0, 4 // a seed whose greedy text does not settle into one token
	headQ2.Type, headQ2.HeadType = ggufx.TypeQ2_0, ggufx.TypeQ2_0
	for _, c := range []struct {
		name      string
		spec      modelgen.Spec
		mustBeBit string // tensors matching it must be BITCOS
		wantN     int    // and there must be this many
	}{
		{"moe", moe, `_exps\.weight$`, 3 * moe.NLayer},
		{"ternary-head", head, `^(token_embd|output)\.weight$`, 2},
		{"moe-q2_0", moeQ2, `_exps\.weight$`, 3 * moe.NLayer},
		{"ternary-head-q2_0", headQ2, `^(token_embd|output)\.weight$`, 2},
	} {
		t.Run(c.name, func(t *testing.T) { greedyParity(t, bin, c.spec, regexp.MustCompile(c.mustBeBit), c.wantN) })
	}
}

func greedyParity(t *testing.T, bin string, s modelgen.Spec, mustBeBit *regexp.Regexp, wantN int) {
	src, bitcos, rep := repackSpec(t, s)
	n := 0
	for _, d := range rep.Tensors {
		if mustBeBit.MatchString(d.Name) {
			if d.Layout != repack.LayoutBitcos {
				t.Fatalf("%s: layout %s, want BITCOS", d.Name, d.Layout)
			}
			n++
		}
	}
	if n != wantN {
		t.Fatalf("%d tensors match %v, want %d", n, mustBeBit, wantN)
	}
	const prompt = "hello world"
	var want string
	for _, c := range []struct {
		threads int
		noMmap  bool
	}{{2, false}, {1, false}, {2, true}, {1, true}} {
		for _, m := range []string{src, bitcos} {
			name := fmt.Sprintf("%s -t %d no-mmap=%v", filepath.Base(m), c.threads, c.noMmap)
			out, log := complete(t, bin, m, prompt, c.threads, c.noMmap)
			i := strings.Index(out, prompt)
			if i < 0 {
				t.Fatalf("%s: the output does not echo the prompt: %q", name, out)
			}
			gen := out[i+len(prompt):]
			if m == bitcos {
				// llama.cpp loaded the experts as BITCOS, not something else.
				if got := regexp.MustCompile(`type\s+bitcos:\s+(\d+) tensors`).FindStringSubmatch(log); got == nil || got[1] != strconv.Itoa(rep.Converted) {
					t.Fatalf("%s: llama.cpp did not report %d BITCOS tensors (%v)", name, rep.Converted, got)
				}
			}
			if want == "" {
				// Greedy decoding of this model does not settle into
				// one repeated token: the layers, experts included,
				// decide what comes next.
				if len(gen) < 32 || len(uniqueBytes(gen)) < 8 {
					t.Fatalf("%s: a degenerate generation: %q", name, gen)
				}
				want = gen
				t.Logf("%s: %q", name, gen)
				continue
			}
			if gen != want {
				t.Errorf("%s: generated %q, want %q", name, gen, want)
			}
		}
	}
}

// complete runs llama-completion greedily for 32 tokens and returns its
// stdout and stderr. llama.cpp's logger writes from a thread and can lose
// the last lines at exit, on stdout (the generated text) as on stderr: so
// every configuration runs until two runs have the final timings on stderr,
// their texts must agree up to the shorter one (a deterministic program only
// loses an end), and the longer text is returned.
func complete(t *testing.T, bin, model, prompt string, threads int, noMmap bool) (string, string) {
	t.Helper()
	args := []string{"-m", model, "-p", prompt, "-n", "32", "--temp", "0", "-no-cnv", "-t", strconv.Itoa(threads), "-v"}
	if noMmap {
		args = append(args, "--no-mmap")
	}
	var outs, logs []string
	for try := 0; len(outs) < 2 && try < 6; try++ {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("llama-completion %v: %v\n%s", args, err, tailString(stderr.String(), 3000))
		}
		if strings.Contains(stderr.String(), "total time") || try >= 4 {
			outs, logs = append(outs, stdout.String()), append(logs, stderr.String())
		}
	}
	a, b := outs[0], outs[1]
	if len(b) > len(a) {
		a, b = b, a
		logs[0], logs[1] = logs[1], logs[0]
	}
	if !strings.HasPrefix(a, b) {
		t.Fatalf("llama-completion %v is not deterministic: %q, then %q", args, outs[0], outs[1])
	}
	return a, logs[0]
}

func uniqueBytes(s string) map[byte]bool {
	m := map[byte]bool{}
	for i := 0; i < len(s); i++ {
		m[s[i]] = true
	}
	return m
}

func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
