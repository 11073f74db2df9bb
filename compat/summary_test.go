package compat

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
	parser "github.com/gpustack/gguf-parser-go"
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
			s, err := summarize(path)
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
				if _, err := summarize(out); err == nil {
					t.Fatal("gguf-parser-go read a BITCOS file: update the notes on what it supports")
				}
			}
		})
	}
	i2s := filepath.Join(t.TempDir(), "i.gguf")
	if err := modelgen.Write(i2s, modelgen.Small(ggufx.TypeI2_S, 41)); err != nil {
		t.Fatal(err)
	}
	if _, err := summarize(i2s); err == nil || !strings.Contains(err.Error(), "gguf-parser-go cannot read") {
		t.Fatalf("I2_S: %v", err)
	}
}

// summary is gguf-parser-go's view of a file: an independent reading of
// its header, used for metadata summaries and as a cross-check. It is only
// available for files gguf-parser-go can read: it rejects I2_S (type 36,
// which it sizes as IQ4_NL_4_4) and BITCOS (an id it does not know), and it
// trims whitespace from strings, so it is never used to rewrite a file
// (DESIGN §3).
type summary struct {
	Architecture  string  `json:"architecture"`
	Name          string  `json:"name,omitempty"`
	FileType      string  `json:"file_type"`
	Parameters    uint64  `json:"parameters"`
	BitsPerWeight float64 `json:"bits_per_weight"`
	Tensors       uint64  `json:"tensors"`
	DataOffset    int64   `json:"data_offset"`
}

// summarize reads path with gguf-parser-go.
func summarize(path string) (*summary, error) {
	gf, err := parser.ParseGGUFFile(path)
	if err != nil {
		return nil, fmt.Errorf("gguf-parser-go cannot read %s: %w", path, err)
	}
	m := gf.Metadata()
	return &summary{
		Architecture:  m.Architecture,
		Name:          m.Name,
		FileType:      m.FileTypeDescriptor,
		Parameters:    uint64(m.Parameters),
		BitsPerWeight: float64(m.BitsPerWeight),
		Tensors:       gf.Header.TensorCount,
		DataOffset:    gf.TensorDataStartOffset,
	}, nil
}
