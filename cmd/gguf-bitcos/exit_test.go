package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
)

const fixture = "../../testdata/tiny-tq2_0.gguf"

// TestExitStatuses checks the documented exit statuses and that a usage
// error prints the usage line.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.gguf")
	if code := run([]string{"repack", "-q", fixture, "-o", out}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("repack failed")
	}
	// The version KV renamed: every verb refuses it (exit 1) with a message
	// naming the file, and none panics.
	good, _ := os.ReadFile(out)
	bad, err := corrupt.Rewrite(good, func(h *ggufx.Header) { corrupt.RenameKV(h, bitcos.KeyVersion, "bitcos.versioX") })
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "renamed.gguf")
	os.WriteFile(renamed, bad, 0o644)
	cases := []struct {
		args []string
		code int
		err  string // in stderr
	}{
		{[]string{"verify", fixture, out}, 0, ""},
		{[]string{"verify", "--fast", fixture, out}, 0, ""},
		{[]string{"verify", "../../testdata/tiny-q2_0.gguf", out}, 2, "differ"},
		{[]string{"stats", renamed}, 1, "renamed.gguf: holds BITCOS data or bitcos.* keys but no bitcos.version"},
		{[]string{"stats", "--json", renamed}, 1, "no bitcos.version"},
		{[]string{"card", renamed, "-o", filepath.Join(dir, "c")}, 1, "no bitcos.version"},
		{[]string{"verify", fixture, renamed}, 1, "no bitcos.version"},
		{[]string{"unpack", renamed, "-o", filepath.Join(dir, "u.gguf")}, 1, "no bitcos.version"},
		{[]string{"verify", fixture}, 64, "Usage: gguf-bitcos verify ORIGINAL.gguf REPACKED.gguf"},
		{[]string{"repack"}, 64, "Usage: gguf-bitcos repack"},
		{[]string{"repack", fixture, "--no-such-flag"}, 64, "unknown flag: --no-such-flag"},
		{[]string{"repack", fixture, "--head", "q9_9"}, 64, "Usage: gguf-bitcos repack"},
		{[]string{"repack", fixture, "--split-max-size", "1G", "--split-max-tensors", "3"}, 64, "not both"},
		{[]string{"repack", fixture, "--split-max-size", "lots"}, 64, "split size"},
		{[]string{"no-such-verb"}, 64, "unknown command"},
		{[]string{"stats", filepath.Join(dir, "missing.gguf")}, 1, "missing.gguf"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var o, e bytes.Buffer
			code := run(c.args, &o, &e)
			if code != c.code || !strings.Contains(e.String(), c.err) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, e.String(), c.code, c.err)
			}
			if strings.Contains(e.String(), "panic") || strings.Contains(e.String(), "goroutine") {
				t.Fatalf("a panic: %s", e.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "u.gguf")); err == nil {
		t.Error("unpack wrote an output for a refused file")
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil {
		t.Error("card left a directory for a refused file")
	}
}

// TestZeroTensorHeaderIsLoud: a header whose tensor count is 0 "repacks"
// into its metadata alone; repack says so on stderr, and that the rest of
// the file was not copied.
func TestZeroTensorHeaderIsLoud(t *testing.T) {
	data, _ := os.ReadFile(fixture)
	binary.LittleEndian.PutUint64(data[8:], 0)
	dir := t.TempDir()
	in := filepath.Join(dir, "zero.gguf")
	os.WriteFile(in, data, 0o644)
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", in, "-o", filepath.Join(dir, "o.gguf")}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	for _, want := range []string{"warning: " + in + ": the header lists no tensors", "are not tensor data by this header, and are not copied"} {
		if !strings.Contains(e.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, e.String())
		}
	}
}

// TestPanicExits70: a panic is reported as an internal error with its own
// status, and no output survives it.
func TestPanicExits70(t *testing.T) {
	dir := t.TempDir()
	atomicfile.BeforeCommit = func(string) { panic("injected") }
	defer func() { atomicfile.BeforeCommit = nil }()
	var o, e bytes.Buffer
	code := run([]string{"repack", "-q", fixture, "-o", filepath.Join(dir, "o.gguf")}, &o, &e)
	if code != 70 || !strings.Contains(e.String(), "internal error (a bug in gguf-bitcos") {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestPositionalOutputAndNothingGained: repack IN OUT and unpack IN OUT as
// llama-quantize takes them; a repack where no tensor gains writes nothing
// and says so (exit 0) unless --force.
func TestPositionalOutputAndNothingGained(t *testing.T) {
	dir := t.TempDir()
	out, back := filepath.Join(dir, "p.gguf"), filepath.Join(dir, "b.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", fixture, out}, &o, &e); code != 0 {
		t.Fatalf("repack IN OUT: %d %s", code, e.String())
	}
	if code := run([]string{"unpack", out, back}, &o, &e); code != 0 {
		t.Fatalf("unpack IN OUT: %d %s", code, e.String())
	}
	a, _ := os.ReadFile(fixture)
	if b, _ := os.ReadFile(back); !bytes.Equal(a, b) {
		t.Fatal("positional round trip differs")
	}
	if code := run([]string{"repack", fixture, out, "-o", out}, &o, &e); code != 64 {
		t.Fatalf("OUT and -o: exit %d", code)
	}
	// An F16 master without --ternarize: nothing gains.
	master := filepath.Join(dir, "m.gguf")
	if code := run([]string{"gen", master, "--type", "f16"}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	o.Reset()
	mout := filepath.Join(dir, "m.bitcos.gguf")
	if code := run([]string{"repack", "-q", master, mout}, &o, &e); code != 0 || !strings.Contains(o.String(), "nothing was written") {
		t.Fatalf("exit %d, %q", code, o.String())
	}
	if _, err := os.Stat(mout); err == nil {
		t.Fatal("written although nothing gains")
	}
	if code := run([]string{"repack", "-q", "--force", master, mout}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	if _, err := os.Stat(mout); err != nil {
		t.Fatal("--force did not write")
	}
}
