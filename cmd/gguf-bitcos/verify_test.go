package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyVerdicts: verify exits 0 only for a BITCOS repack of the
// original; files that differ exit 2; a second file that is no repack,
// swapped arguments and two BITCOS files exit 4, each saying what was
// given; the counts name what they count.
func TestVerifyVerdicts(t *testing.T) {
	dir := t.TempDir()
	tq1 := copyFixture(t, dir, "tiny-tq1_0.gguf")
	tq2 := copyFixture(t, dir, "tiny-tq2_0.gguf")
	rep := filepath.Join(dir, "r.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", tq1, rep}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	for _, c := range []struct {
		name     string
		a, b     string
		code     int
		verdict  string
		out, err string
	}{
		{"repack", tq1, rep, 0, "ok",
			"OK: 16 tensors and 21 KVs identical: 1 tensor as ternary codes and scale bits (1 BITCOS), 15 byte for byte (9 of them ternary)", ""},
		{"differ", tq2, rep, 2, "differ", "DIFF", tq2 + " and " + rep + " differ"},
		{"same file twice", tq1, tq1, 4, "not-a-repack", "", tq1 + " is not a BITCOS repack (no bitcos.version, no BITCOS tensors), so nothing proves a repack; they hold the same tensors and KVs"},
		{"two stock files", tq1, tq2, 4, "not-a-repack", "DIFF", "is not a BITCOS repack"},
		{"swapped", rep, tq1, 4, "swapped", "", "the arguments are the wrong way round: " + rep + " (given as ORIGINAL) is the BITCOS file"},
		{"both BITCOS", rep, rep, 4, "original-is-bitcos", "", "both files are BITCOS files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o.Reset()
			e.Reset()
			code := run([]string{"verify", c.a, c.b}, &o, &e)
			if code != c.code || !strings.Contains(o.String(), c.out) || !strings.Contains(e.String(), c.err) {
				t.Fatalf("exit %d\nstdout %q\nstderr %q", code, o.String(), e.String())
			}
			o.Reset()
			code = run([]string{"verify", "--json", c.a, c.b}, &o, &e)
			var v struct {
				Verdict string   `json:"verdict"`
				Diffs   []string `json:"diffs"`
			}
			if err := json.Unmarshal(o.Bytes(), &v); err != nil || code != c.code || v.Verdict != c.verdict || v.Diffs == nil {
				t.Fatalf("--json: exit %d, %v, %s", code, err, o.String())
			}
		})
	}
}
