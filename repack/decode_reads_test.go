package repack

import (
	"path/filepath"
	"testing"
)

// TestDecodeReadsAreData: what one decode step reads is tensor data, never
// more than the weights' memory (the alignment padding and header entries
// of a BITCOS family are no reads), and the prediction for a stock file is
// what its repack then reports.
func TestDecodeReadsAreData(t *testing.T) {
	for _, fx := range []string{"tiny-tq2_0.gguf", "tiny-tq1_0.gguf", "tiny-q2_0.gguf", "tiny-i2_s.gguf"} {
		t.Run(fx, func(t *testing.T) {
			in := filepath.Join("..", "testdata", fx)
			out := filepath.Join(t.TempDir(), "r.gguf")
			if _, err := Repack(in, Options{Output: out}); err != nil {
				t.Fatal(err)
			}
			a, err := Stats(in, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Stats(out, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name  string
				reads int64
				mem   int64
			}{
				{"stock", a.DecodeRead.Before.Total, a.Memory.Weights},
				{"repack", b.DecodeRead.Before.Total, b.Memory.Weights},
			} {
				if c.reads > c.mem {
					t.Errorf("%s: a decode step reads %d bytes, the weights are %d", c.name, c.reads, c.mem)
				}
			}
			if a.DecodeRead.After != b.DecodeRead.Before {
				t.Errorf("predicted %+v, the repack reads %+v", a.DecodeRead.After, b.DecodeRead.Before)
			}
		})
	}
}
