package modelgen

import (
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TestMixed: a Mixed spec gives the projections its types in turn, in plan
// order, and writes each tensor in its own type (the file parses and every
// ternary tensor has its type's size); specs it cannot honour are refused.
func TestMixed(t *testing.T) {
	mixed := []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeQ2_0, ggufx.TypeI2_S, ggufx.TypeTQ1_0}
	cases := []struct {
		name    string
		edit    func(s *Spec)
		wantErr string
	}{
		{"four types", func(s *Spec) {}, ""},
		{"with scale tensors", func(s *Spec) { s.ScaleTensors = true }, ""},
		{"a float type", func(s *Spec) { s.Mixed = []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeF16} }, "not a ternary type"},
		{"llama arch", func(s *Spec) { s.Arch = ArchLlama }, "bitnet archs"},
		{"non-ternary", func(s *Spec) { s.NonTernary = true }, "bitnet archs"},
		{"float master", func(s *Spec) { s.Type = ggufx.TypeF16 }, "bitnet archs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Small(ggufx.TypeTQ2_0, 5)
			s.Mixed = mixed
			c.edit(&s)
			if !checkSpec(t, &s, c.wantErr) {
				return
			}
			var got []ggufx.GGMLType
			for _, ts := range s.plan() {
				if ts.kind == kindTernary {
					got = append(got, ts.info.Type)
				}
			}
			if len(got) != 7*s.NLayer {
				t.Fatalf("%d ternary projections, want %d", len(got), 7*s.NLayer)
			}
			for i, typ := range got {
				if typ != mixed[i%len(mixed)] {
					t.Fatalf("projection %d is %v, want %v (the types in turn)", i, typ, mixed[i%len(mixed)])
				}
			}
			path := filepath.Join(t.TempDir(), "mixed.gguf")
			if err := Write(path, s); err != nil {
				t.Fatal(err)
			}
			f, err := ggufx.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, ti := range f.Tensors {
				c := format.CodecFor(ti.Type)
				if c == nil {
					continue
				}
				k, n := int(ti.Dims[0]), 1
				for _, d := range ti.Dims {
					n *= int(d)
				}
				if want := uint64(c.TensorBytes(k, n/k)); ti.Size != want {
					t.Errorf("%s (%v): %d bytes, want %d", ti.Name, ti.Type, ti.Size, want)
				}
			}
		})
	}
}
