package compat

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// TestSummaryAgrees reads generated stock models with gguf-parser-go and
// checks its tensor count, data offset and parameter count against ours; and
// that it refuses the files it cannot read (I2_S, BITCOS) with an error
// rather than a wrong answer.
func TestSummaryAgrees(t *testing.T) {
	for _, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0, ggufx.TypeF16} {
		t.Run(typ.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := modelgen.Write(path, modelgen.Small(typ, 40)); err != nil {
				t.Fatal(err)
			}
			s, err := Summarize(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ggufx.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var params uint64
			for _, ti := range f.Tensors {
				params += ti.Elements()
			}
			if s.Architecture != "bitnet" || s.Tensors != uint64(len(f.Tensors)) ||
				s.DataOffset != int64(f.DataOffset) || s.Parameters != params {
				t.Fatalf("gguf-parser-go: %+v; ours: %d tensors, data at %d, %d parameters", s, len(f.Tensors), f.DataOffset, params)
			}
			// stats' own summary (the binary does not link gguf-parser-go)
			// agrees with it.
			st, err := repack.Stats(path, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m := st.Model; m.Architecture != s.Architecture || m.Name != s.Name || m.Parameters != s.Parameters ||
				math.Abs(m.BitsPerWeight-s.BitsPerWeight) > 1e-3*s.BitsPerWeight {
				t.Fatalf("stats: %+v; gguf-parser-go: %+v", m, s)
			}
			if typ == ggufx.TypeTQ2_0 {
				out := filepath.Join(t.TempDir(), "b.gguf")
				if _, err := repack.Repack(path, repack.Options{Output: out}); err != nil {
					t.Fatal(err)
				}
				if _, err := Summarize(out); err == nil {
					t.Fatal("gguf-parser-go read a BITCOS file: update the notes on what it supports")
				}
			}
		})
	}
	i2s := filepath.Join(t.TempDir(), "i.gguf")
	if err := modelgen.Write(i2s, modelgen.Small(ggufx.TypeI2_S, 41)); err != nil {
		t.Fatal(err)
	}
	if _, err := Summarize(i2s); err == nil || !strings.Contains(err.Error(), "gguf-parser-go cannot read") {
		t.Fatalf("I2_S: %v", err)
	}
}
