package modelgen

import (
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// The benchmark shapes are valid specs whose ternary rows are whole 256-blocks
// (every stock ternary type takes them) and carry the sizes of the models
// they stand for.
func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		spec                            func(ggufx.GGMLType, uint64) Spec
		arch                            string
		embd, ff, layers, head, headDim int
	}{
		{"2b", Shape2B, "bitnet", 2560, 6912, 30, 20, 128},
		{"8b", Shape8B, ArchLlama, 4096, 14336, 32, 32, 128},
		{"10b", Shape10B, ArchLlama, 3072, 23040, 40, 12, 256},
	} {
		s := tc.spec(ggufx.TypeTQ2_0, 1)
		if err := s.check(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Arch != tc.arch || s.NEmbd != tc.embd || s.NFF != tc.ff || s.NLayer != tc.layers || s.NHead != tc.head ||
			s.NEmbd/s.NHead != tc.headDim {
			t.Errorf("%s: %+v", tc.name, s)
		}
		if s.NEmbd%256 != 0 || s.NFF%256 != 0 { // row lengths: n_embd (attention, gate, up) and n_ff (down)
			t.Errorf("%s: a ternary row is not whole 256-blocks: %+v", tc.name, s)
		}
	}
}
