package ppl

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/llamatest"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// llamaPerplexity is llama-perplexity of a llama.cpp build with patches/
// applied, in the folder $GGUF_BITCOS_LLAMA_BIN (as compat's tests find
// it); the test skips without one.
func llamaPerplexity(t *testing.T) string {
	t.Helper()
	return llamatest.ToolIn(t, "GGUF_BITCOS_LLAMA_BIN",
		"a patched llama.cpp build's bin folder: the noise floor against the real llama-perplexity is not tested", "llama-perplexity")
}

// testText is enough text for three chunks of 128 tokens.
func testText(t *testing.T) string {
	return llamatest.Text(t, "a repack stores the same ternary values and scale bits in fewer bytes "+
		"so the logits of the model do not change by a single bit when it is run")
}

// oneCodeChanged copies TQ2_0 model in with one ternary code of
// blk.1.ffn_down.weight changed (in a block whose scale is not zero).
func oneCodeChanged(t *testing.T, in, out string) {
	t.Helper()
	f, err := ggufx.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := f.Tensor("blk.1.ffn_down.weight")
	f.Close()
	if !ok || f.Tensors[i].Type != ggufx.TypeTQ2_0 {
		t.Fatalf("%s: no TQ2_0 blk.1.ffn_down.weight", in)
	}
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	ti, data := f.Tensors[i], f.DataOffset
	off := ti.Offset
	const block = 66 // TQ2_0: 64 bytes of codes, an fp16 scale
	for p := data + off; p+block <= data+off+ti.Size; p += block {
		if binary.LittleEndian.Uint16(b[p+64:])&0x7fff == 0 {
			continue
		}
		if b[p]&3 == 1 { // 0 -> +1, else -> 0
			b[p] = b[p]&^3 | 2
		} else {
			b[p] = b[p]&^3 | 1
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("no block with a scale")
}

// TestNoiseFloorWithLlama: with the real llama-perplexity, the small
// generated model (2 layers) against itself and against its repack passes
// (identical logits: its flat distribution gives a KLD floor of about 1e-6
// from the 16-bit store alone), and against a copy with one code changed
// fails, strictly and with a --max-kld of 1e-6 above the floor.
func TestNoiseFloorWithLlama(t *testing.T) {
	bin := llamaPerplexity(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "t.gguf")
	s := modelgen.Small(ggufx.TypeTQ2_0, 1)
	s.NLayer = 2
	if err := modelgen.Write(base, s); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "t-BITCOS.gguf")
	if _, err := repack.Repack(base, repack.Options{Output: rep}); err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(dir, "changed.gguf")
	oneCodeChanged(t, base, changed)
	text := testText(t)
	for _, c := range []struct {
		name   string
		cand   string
		parity bool
	}{
		{"itself", base, true},
		{"its repack", rep, true},
		{"one code changed", changed, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Run(Options{Bin: bin, Base: base, Candidate: c.cand, Text: text, Ctx: 128, Threads: 2, Extra: []string{"--chunks", "3"}})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("PPL %s vs %s, logits %s; mean KLD %s (max %s), floor %s (max %s)", r.PPLCandText, r.PPLBaseText, r.LogitsDiff,
				KLD(r.MeanKLD), KLD(r.MaxKLD), KLD(r.FloorMeanKLD), KLD(r.FloorMaxKLD))
			for _, maxKLD := range []float64{0, 1e-6} {
				if err := r.Parity(maxKLD, false); (err == nil) != c.parity {
					t.Errorf("max KLD %g: parity %v, want parity %v", maxKLD, err, c.parity)
				}
			}
		})
	}
}
