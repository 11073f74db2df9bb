package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// TestHeadMatchesLlamaQuantize repacks the model the golden fixtures were
// made from (testdata/golden/README.md: `gen --type f16 --head f16 --shape
// small`, seed 1) with a quantized head, and compares token_embd's first 64
// rows with the bytes llama-quantize wrote for them.
func TestHeadMatchesLlamaQuantize(t *testing.T) {
	for _, typ := range []string{"q8_0", "q6_K", "q4_K"} {
		t.Run(typ, func(t *testing.T) {
			in := genModel(t, modelgen.Small(ggufx.TypeF16, 1))
			out := filepath.Join(filepath.Dir(in), "o.gguf")
			heads, err := HeadPlan(typ, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Repack(in, Options{Output: out, Heads: heads, Ternarize: true}); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("..", "testdata", "golden", "f16."+typ+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := ggufx.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			i, _ := g.Tensor(TokenEmbd)
			got, err := g.ReadTensor(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			if g.Tensors[i].Type.String() != typ || len(got) < len(want) || !bytes.Equal(got[:len(want)], want) {
				t.Fatalf("token_embd is %v; its first rows differ from llama-quantize's", g.Tensors[i].Type)
			}
			v, err := Verify(in, out)
			if err != nil || !v.OK() || v.HeadsChecked != 1 || v.TernaryChecked != 14 {
				t.Fatalf("verify: %v %+v", err, v)
			}
		})
	}
}

func TestHeadPlanAndRefusals(t *testing.T) {
	p, err := HeadPlan("q6_k", "keep", "Q8_0")
	if err != nil || p[TokenEmbd].Name != "" || p[OutputW].Name != "q8_0" {
		t.Fatalf("plan %v %v", p, err)
	}
	if _, err := HeadPlan("q3_K", "", ""); err == nil {
		t.Fatal("unknown head type accepted")
	}
	// A head that is already quantized cannot be quantized again.
	s := modelgen.Small(ggufx.TypeTQ2_0, 3)
	s.Output = true
	in := genModel(t, s)
	out := filepath.Join(filepath.Dir(in), "o.gguf")
	heads, _ := HeadPlan("q4_K", "", "")
	rep, err := Repack(in, Options{Output: out, Heads: heads})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(in, out)
	if err != nil || !v.OK() || v.HeadsChecked != 2 {
		t.Fatalf("verify: %v %+v", err, v)
	}
	again := filepath.Join(filepath.Dir(in), "again.gguf")
	if _, err := Repack(rep.Output, Options{Output: again, Heads: heads}); err == nil {
		t.Fatal("repack of a repacked file accepted")
	}
	// Tamper with one head byte: verify must notice.
	data, _ := os.ReadFile(out)
	g, _ := ggufx.Open(out)
	i, _ := g.Tensor(OutputW)
	data[g.DataOffset+g.Tensors[i].Offset+40] ^= 1
	g.Close()
	bad := filepath.Join(filepath.Dir(in), "bad.gguf")
	os.WriteFile(bad, data, 0o644)
	if v, err := Verify(in, bad); err != nil || v.OK() {
		t.Fatalf("tampered head verified: %v %+v", err, v)
	}
}
