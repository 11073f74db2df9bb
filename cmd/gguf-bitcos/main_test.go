package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
