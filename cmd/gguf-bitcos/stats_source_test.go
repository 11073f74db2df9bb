package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange/httprangetest"
)

// statsOut runs stats and returns its output.
func statsOut(t *testing.T, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(append([]string{"stats"}, args...), &o, &e); code != 0 {
		t.Fatalf("stats %v: exit %d: %s", args, code, e.String())
	}
	return o.String()
}

// withoutSource drops what depends on where the bytes came from.
func withoutSource(t *testing.T, js string) string {
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "file")
	delete(m, "remote")
	b, _ := json.Marshal(m)
	return string(b)
}

// TestStatsURL: `stats --json URL` equals `stats --json FILE` but for the
// file name and the traffic, with a server that cuts responses; text mode
// reports the traffic and sampled mode the intervals.
func TestStatsURL(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "m.gguf"), b, 0o644)
	srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: 8 << 10})
	url := srv.File("m.gguf")
	local := statsOut(t, "--json", filepath.Join(dir, "m.gguf"))
	remote := statsOut(t, "--json", url)
	if withoutSource(t, local) != withoutSource(t, remote) {
		t.Fatalf("stats URL differs from stats FILE:\n%s\n%s", local, remote)
	}
	if !strings.Contains(remote, `"bytes_fetched"`) || strings.Contains(local, `"remote"`) {
		t.Fatal("the traffic belongs in the remote report only")
	}
	text := statsOut(t, "--sample", "8", url)
	for _, want := range []string{"remote: fetched ", "sampled: 8 blocks per tensor (seed 1)", "95% interval [", " ["} {
		if !strings.Contains(text, want) {
			t.Errorf("sampled text lacks %q:\n%s", want, text)
		}
	}
}
