package compat

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// TestEverySourceTypeRuns: a generated model of each ternary source type
// repack accepts, repacked, loads in the patched llama-completion and
// generates text, so that no source type can give a file the series refuses
// (issue 38). A Q2_0-sourced repack (fp16 scales per 64 weights) is refused
// by the loader today: that subtest skips while the refusal is the known
// one, and fails on any other error, so it turns into a plain pass when the
// series learns the grouping. A mixed model (several source types in one
// file) is not generated yet.
func TestEverySourceTypeRuns(t *testing.T) {
	bin := llamaBin(t, "llama-completion")
	for i, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0, ggufx.TypeI2_S} {
		t.Run(typ.String(), func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src.gguf")
			spec := modelgen.Small(typ, uint64(70+i))
			if typ == ggufx.TypeTQ1_0 {
				// BITCOS beats TQ1_0's 1.69 bits per weight only where
				// more than about 31% of the weights are zeros, overheads
				// included: densities where every projection converts
				spec.ZMin, spec.ZMax = 0.5, 0.6
			}
			if err := modelgen.Write(src, spec); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "bitcos.gguf")
			rep, err := repack.Repack(src, repack.Options{Output: out})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Converted == 0 {
				t.Fatalf("the %v model's repack converted no tensor", typ)
			}
			// one run for the loader's verdict, then complete's retries
			// for the text (llama.cpp's logger can lose stdout at exit)
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "-m", out, "-p", "The format stores", "-n", "8", "--temp", "0", "-no-cnv", "-t", "2")
			cmd.Stderr = &stderr
			err = cmd.Run()
			if err != nil && typ == ggufx.TypeQ2_0 && strings.Contains(stderr.String(), "companions of unexpected type or shape") {
				t.Skip("issue 38: the series does not load fp16 scales per 64 weights (Q2_0 sources) yet")
			}
			if err != nil {
				t.Fatalf("llama-completion on the %v model's repack: %v\n%s", typ, err, tailString(stderr.String(), 3000))
			}
			text, log := complete(t, bin, out, "The format stores", 2, false)
			if strings.TrimSpace(strings.TrimPrefix(text, "The format stores")) == "" {
				t.Fatalf("the %v model's repack generated nothing:\n%s", typ, tailString(log, 2000))
			}
		})
	}
}
