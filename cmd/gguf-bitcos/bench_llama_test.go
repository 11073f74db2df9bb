package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeLlamaBench writes a stand-in for llama-bench -o jsonl: for the model
// after -m it prints tg16 and pp32 at one thread, at a speed that names the
// model (a.gguf 10 t/s, b.gguf 15, anything else 12; prompts ten times that).
func fakeLlamaBench(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "llama-bench")
	script := `#!/bin/sh
m=""
while [ $# -gt 0 ]; do [ "$1" = "-m" ] && m="$2"; shift; done
case "$m" in *a.gguf) s=10;; *b.gguf) s=15;; *) s=12;; esac
echo "{\"cpu_info\":\"Fake CPU\",\"n_threads\":1,\"n_prompt\":0,\"n_gen\":16,\"avg_ts\":$s}"
echo "{\"cpu_info\":\"Fake CPU\",\"n_threads\":1,\"n_prompt\":32,\"n_gen\":0,\"avg_ts\":${s}0}"
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBenchLlama(t *testing.T) {
	fake := fakeLlamaBench(t)
	var o, e bytes.Buffer
	args := []string{"bench", "llama", "--bench", fake, "--threads", "1", "--tests", "tg16,pp32", "--rounds", "2", "--reps", "1",
		"tq2_0=/m/a.gguf", "/m/b.gguf", "--peer", "iq2_bn=" + fake + ":/m/c.gguf", "--env", "b=GGML_BITCOS_LAYOUT=native"}
	if code := run(args, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	for _, s := range []string{"CPU: Fake CPU", "b (file): /m/b.gguf GGML_BITCOS_LAYOUT=native", "iq2_bn (peer)",
		"1.50x (1.50-1.50)", "1.25x (1.25-1.25)", "pp32"} {
		if !strings.Contains(o.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, o.String())
		}
	}
	o.Reset()
	if code := run(append(args, "--json"), &o, &e); code != 0 || !strings.Contains(o.String(), `"x_best_peer"`) {
		t.Errorf("--json: exit %d, %s", code, o.String())
	}
	for _, bad := range [][]string{
		{"bench", "llama", "a.gguf"}, // no --bench
		{"bench", "llama", "--bench", fake},
		{"bench", "llama", "--bench", fake, "--peer", "p=nocolon", "a.gguf"},
		{"bench", "llama", "--bench", fake, "--env", "zz=K=V", "a.gguf"},
		{"bench", "llama", "--bench", fake, "--tests", "tg16,qq3", "a.gguf"},
	} {
		if code := run(bad, &o, &e); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", bad, code, exitUsage, e.String())
		}
	}
}
