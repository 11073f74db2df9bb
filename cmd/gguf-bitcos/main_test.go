package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/card"
)

// TestCLI runs the README's flow through the command line: repack, verify,
// unpack, stats; and checks exit statuses and messages on bad input.
func TestCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "testdata", "tiny-i2_s.gguf")
	out := filepath.Join(dir, "r.gguf")
	back := filepath.Join(dir, "u.gguf")
	runOK := func(args ...string) string {
		t.Helper()
		var o, e bytes.Buffer
		if code := run(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
		return o.String()
	}
	runOK("repack", "-q", in, "-o", out)
	if s := runOK("verify", in, out); !strings.HasPrefix(s, "OK:") {
		t.Fatalf("verify said %q", s)
	}
	runOK("unpack", out, "-o", back)
	a, _ := os.ReadFile(in)
	b, _ := os.ReadFile(back)
	if !bytes.Equal(a, b) {
		t.Fatal("unpack is not byte-identical")
	}
	var st struct {
		Total struct {
			Z float64 `json:"zero_density"`
		} `json:"total"`
		RepackBytes int64 `json:"repack_file_bytes"`
	}
	if err := json.Unmarshal([]byte(runOK("stats", "--json", in)), &st); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(out)
	if st.RepackBytes != fi.Size() || st.Total.Z < 0.3 || st.Total.Z > 0.52 {
		t.Fatalf("stats: %+v, repack wrote %d bytes", st, fi.Size())
	}

	// verify exits 2 and lists the difference.
	other := filepath.Join("..", "..", "testdata", "tiny-tq2_0.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"verify", other, out}, &o, &e); code != 2 || !strings.Contains(o.String(), "DIFF") {
		t.Fatalf("verify of different files: exit %d, %q %q", code, o.String(), e.String())
	}
	// Bad input: a clear error naming the file, exit 1, nothing written.
	junk := filepath.Join(dir, "junk.gguf")
	os.WriteFile(junk, []byte("GGUF\x03\x00\x00\x00garbage"), 0o644)
	o.Reset()
	e.Reset()
	if code := run([]string{"repack", junk, "-o", filepath.Join(dir, "j.gguf")}, &o, &e); code != 1 || !strings.Contains(e.String(), "junk.gguf") {
		t.Fatalf("repack of junk: exit %d, %q", code, e.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "j.gguf")); err == nil {
		t.Fatal("output written for a bad input")
	}
}

// TestCard writes a card for a split, head-quantized repack and checks its
// numbers against stats --json and the files' sha256.
func TestCard(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "testdata", "tiny-tq2_0.gguf")
	out := filepath.Join(dir, "m.bitcos.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", "--head", "q8_0", "--split-max-tensors", "12", in, "-o", out}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	first := filepath.Join(dir, "m.bitcos-00001-of-00003.gguf")
	o.Reset()
	if code := run([]string{"stats", "--json", first}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	var st struct {
		Total struct {
			Z         float64 `json:"zero_density"`
			BitcosBPW float64 `json:"bitcos_bpw"`
		} `json:"total"`
		FileBytes int64 `json:"file_bytes"`
	}
	if err := json.Unmarshal(o.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"card", first, "--source", in, "-o", dir}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, want := range []string{
		fmt.Sprintf("**%.4f bits/weight**", st.Total.BitcosBPW),
		fmt.Sprintf("z = %.4f", st.Total.Z),
		fmt.Sprintf("| this model | %d ", st.FileBytes),
		"head q8_0 (token_embd.weight)",
		"m.bitcos-00003-of-00003.gguf",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("card lacks %q", want)
		}
	}
	for s := 1; s <= 3; s++ {
		p := filepath.Join(dir, fmt.Sprintf("m.bitcos-%05d-of-00003.gguf", s))
		sum, _, err := card.SHA256File(p)
		if err != nil || !strings.Contains(text, sum) {
			t.Errorf("card lacks the sha256 of %s", p)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "zero-density.svg"))
	if err != nil || !strings.HasPrefix(string(svg), "<svg") || strings.Count(string(svg), "<rect") < 8 {
		t.Fatalf("chart: %v", err)
	}
}
