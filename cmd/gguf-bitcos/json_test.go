package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/advise"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeys collects every object key of a decoded JSON value.
func jsonKeys(v any, keys map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			keys[k] = true
			jsonKeys(e, keys)
		}
	case []any:
		for _, e := range x {
			jsonKeys(e, keys)
		}
	}
}

// TestJSONKeysAreSnakeCase: every verb's --json output uses one key style.
func TestJSONKeysAreSnakeCase(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.gguf")
	pplJSON, _ := json.Marshal(ppl.Result{})
	benchJSON, _ := json.Marshal(benchResult{PeakRSS: 1})
	// advise measures through cgo; without it, its empty result's keys
	adviseArgs, adviseJSON := append([]string{"advise", "--json"}, tinyAdvise...), []byte(nil)
	if !advise.Available() {
		adviseArgs = nil
		adviseJSON, _ = json.Marshal(advise.Result{})
	}
	for _, c := range []struct {
		name string
		args []string
		raw  []byte
	}{
		{"repack", []string{"repack", "--json", fixture, out}, nil},
		{"stats", []string{"stats", "--json", out}, nil},
		{"stats sampled", []string{"stats", "--json", "--sample", "4", out}, nil},
		{"verify", []string{"verify", "--json", fixture, out}, nil},
		{"card", []string{"card", "--json", out, "-o", filepath.Join(dir, "card")}, nil},
		{"ppl", nil, pplJSON},
		{"bench repack", nil, benchJSON},
		{"advise", adviseArgs, adviseJSON},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw
			if raw == nil {
				var o, e bytes.Buffer
				if code := run(c.args, &o, &e); code != 0 {
					t.Fatalf("exit %d: %s", code, e.String())
				}
				raw = o.Bytes()
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			keys := map[string]bool{}
			jsonKeys(v, keys)
			if len(keys) == 0 {
				t.Fatal("no keys")
			}
			for k := range keys {
				if !snakeCase.MatchString(k) {
					t.Errorf("key %q is not snake_case", k)
				}
			}
		})
	}
}
