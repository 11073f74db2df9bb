package repack

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

func TestRepackMasters(t *testing.T) {
	for _, typ := range []ggufx.GGMLType{ggufx.TypeF16, ggufx.TypeBF16, ggufx.TypeF32} {
		t.Run(typ.String(), func(t *testing.T) {
			in := genModel(t, modelgen.Small(typ, 30))
			dir := filepath.Dir(in)
			out := filepath.Join(dir, "out.gguf")
			// Without --ternarize nothing gains: nothing is written, and
			// with --force the copy is unchanged.
			if rep, err := Repack(in, Options{Output: out}); err != nil || rep.NotWritten == "" {
				t.Fatalf("plain repack of a master: %v, %+v", err, rep)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a repack that gains nothing wrote its output")
			}
			if _, err := Repack(in, Options{Output: out, Force: true}); err == nil {
				if v, _ := Verify(in, out); v == nil || !v.OK() {
					t.Fatal("plain repack of a master must copy it unchanged")
				}
			} else {
				t.Fatal(err)
			}
			rep, err := Repack(in, Options{Output: out, Ternarize: true, Replace: true})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Converted != 14 {
				t.Fatalf("%d projections converted, want 14", rep.Converted)
			}
			fs, err := Stats(in, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ts := range fs.Tensors {
				// modelgen draws z in [0.30, 0.52] and writes values that
				// absmean ternarizes back to the drawn codes.
				if ts.Z < 0.29 || ts.Z > 0.53 {
					t.Errorf("%s: ternarized z = %.3f", ts.Name, ts.Z)
				}
			}
			if fs.RepackBytes != rep.OutputBytes {
				t.Errorf("stats predicted %d bytes, repack wrote %d", fs.RepackBytes, rep.OutputBytes)
			}
			v, err := Verify(in, out)
			if err != nil || !v.OK() || v.TernaryChecked != 14 {
				t.Fatalf("verify master vs repack: %v %+v", err, v)
			}
			back := filepath.Join(dir, "back.gguf")
			if err := Unpack(out, back, false); err != nil {
				t.Fatal(err)
			}
			g, err := ggufx.Open(back)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			i, _ := g.Tensor("blk.0.ffn_up.weight")
			if g.Tensors[i].Type != ggufx.TypeTQ2_0 {
				t.Fatalf("master tensors unpack to %v, want TQ2_0", g.Tensors[i].Type)
			}
			if v, err := Verify(in, back); err != nil || !v.OK() {
				t.Fatalf("verify master vs unpacked TQ2_0: %v %+v", err, v)
			}
		})
	}
}
