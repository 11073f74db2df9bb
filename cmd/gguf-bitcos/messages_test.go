package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessages: the small things a user reads: flags
// named as typed, counts in the singular, file types by name, --workers
// checked, help with a description and the exit statuses for every verb.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	master := filepath.Join(dir, "m.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"gen", "-q", "--type", "f16", "--layers", "1", master}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	for _, c := range []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"no gain names --force and --ternarize", []string{"repack", "-q", master, filepath.Join(dir, "o.gguf")}, 0,
			"nothing was written (--force writes it anyway); this is a float master: --ternarize makes its projections ternary", ""},
		{"negative workers", []string{"repack", "-q", "--workers", "-3", master, filepath.Join(dir, "o.gguf")}, 64, "", "--workers -3: want a positive count"},
		{"one tensor", []string{"repack", "-q", filepath.Join("..", "..", "testdata", "tiny-tq1_0.gguf"), filepath.Join(dir, "r.gguf")}, 0,
			"1 tensor to BITCOS, 9 ternary tensors kept", ""},
		{"file type by name", []string{"stats", filepath.Join("..", "..", "testdata", "tiny-tq2_0.gguf")}, 0, "file type 37 (MOSTLY_TQ2_0)", ""},
		{"decode reads as a share", []string{"stats", filepath.Join(dir, "r.gguf")}, 0, "(the same)\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o.Reset()
			e.Reset()
			code := run(c.args, &o, &e)
			if code != c.code || !strings.Contains(o.String(), c.out) || !strings.Contains(e.String(), c.err) {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, o.String(), e.String())
			}
		})
	}
	for _, verb := range []string{"repack", "stats", "verify", "unpack", "card", "ppl", "gen", "bench repack", "advise"} {
		o.Reset()
		if code := run(append(strings.Fields(verb), "--help"), &o, &e); code != 0 || !strings.Contains(o.String(), "Exit status: 0 success") {
			t.Errorf("%s --help: exit %d, no exit statuses:\n%s", verb, code, o.String())
		}
	}
}
