package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// genModel writes a generated model into a temp dir.
func genModel(t testing.TB, s modelgen.Spec) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.gguf")
	if err := modelgen.Write(path, s); err != nil {
		t.Fatal(err)
	}
	return path
}

// wideSpec has rows long enough (K = 2560, as BitNet 2B4T) that BITCOS's
// row index is cheap, so TQ1_0 tensors at high z convert too.
func wideSpec(typ ggufx.GGMLType, seed uint64) modelgen.Spec {
	s := modelgen.Small(typ, seed)
	s.NEmbd, s.NFF, s.NHead, s.NHeadKV, s.NLayer = 2560, 512, 4, 2, 1
	s.ZMin, s.ZMax = 0.45, 0.52
	return s
}

func TestRepackEveryType(t *testing.T) {
	cases := []struct {
		name      string
		spec      modelgen.Spec
		wantKept  map[string]string // tensor -> words in the reason
		minBitcos int
	}{
		{"TQ2_0", modelgen.Small(ggufx.TypeTQ2_0, 1), nil, 14},
		{"TQ2_0 experts odd", func() modelgen.Spec {
			s := modelgen.Small(ggufx.TypeTQ2_0, 2)
			s.Experts, s.OddTensor, s.Output = 3, true, true
			return s
		}(), nil, 17},
		{"TQ1_0 wide", wideSpec(ggufx.TypeTQ1_0, 3), nil, 1},
		{"Q2_0 odd non-ternary", func() modelgen.Spec {
			s := modelgen.Small(ggufx.TypeQ2_0, 4)
			s.OddTensor, s.NonTernary = true, true
			return s
		}(), map[string]string{"blk.0.attn_q.weight": "code 3", "blk.0.odd_proj.weight": "not a multiple of 128"}, 13},
		// rows of 384 weights (ffn_down): Q2_0 and the format take them,
		// the llama.cpp series does not, so they stay Q2_0
		{"Q2_0 rows not of whole 256-blocks", func() modelgen.Spec {
			s := modelgen.Small(ggufx.TypeQ2_0, 7)
			s.NFF = 384
			return s
		}(), map[string]string{"blk.0.ffn_down.weight": "not a multiple of 256, which the llama.cpp series needs",
			"blk.1.ffn_down.weight": "not a multiple of 256"}, 12},
		{"I2_S bitnet-b1.58", func() modelgen.Spec {
			s := modelgen.Small(ggufx.TypeI2_S, 5)
			s.Arch, s.ScaleTensors = "bitnet-b1.58", true
			return s
		}(), nil, 14},
		{"I2_S non-ternary", func() modelgen.Spec {
			s := modelgen.Small(ggufx.TypeI2_S, 6)
			s.NonTernary = true
			return s
		}(), map[string]string{"blk.0.attn_q.weight": "code 3"}, 13},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := genModel(t, c.spec)
			before, _ := os.ReadFile(in)
			out := filepath.Join(filepath.Dir(in), "out.bitcos.gguf")
			rep, err := Repack(in, Options{Output: out})
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
				t.Fatal("the input was modified")
			}
			if rep.Converted < c.minBitcos {
				t.Errorf("%d tensors converted, want at least %d", rep.Converted, c.minBitcos)
			}
			for _, d := range rep.Tensors {
				if want, ok := c.wantKept[d.Name]; ok {
					if d.Layout != LayoutKept || !strings.Contains(d.Reason, want) {
						t.Errorf("%s: layout %s (%s), want kept for %q", d.Name, d.Layout, d.Reason, want)
					}
				}
			}
			// Sizes equal the formula to the byte.
			fs, err := Stats(in, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fs.RepackBytes != rep.OutputBytes {
				t.Errorf("stats predicted %d bytes, repack wrote %d", fs.RepackBytes, rep.OutputBytes)
			}
			var predicted int64 = rep.InputBytes
			for _, d := range rep.Tensors {
				if d.Layout == LayoutBitcos {
					predicted += d.BitcosBytes - d.SourceBytes
				}
			}
			g, err := ggufx.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			hdrDelta := int64(g.DataOffset) // header growth: KVs + padding
			g.Close()
			f0, _ := ggufx.Open(in)
			hdrDelta -= int64(f0.DataOffset)
			f0.Close()
			// Companion header entries are in BitcosBytes; the KVs and
			// the header padding are the rest of the header growth.
			kvGrowth := hdrDelta - companionHeaderBytes(rep)
			if got := predicted + kvGrowth; got != rep.OutputBytes {
				t.Errorf("per-tensor sizes add up to %d, file is %d", got, rep.OutputBytes)
			}
			// Lossless: every tensor decoded and compared.
			v, err := Verify(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK() {
				t.Fatalf("verify: %v", v.Diffs)
			}
			if v.TernaryChecked < rep.Converted {
				t.Fatalf("verify compared %d ternary tensors, %d were converted", v.TernaryChecked, rep.Converted)
			}
			// unpack gives the original back byte for byte.
			back := filepath.Join(filepath.Dir(in), "back.gguf")
			if err := Unpack(out, back, false); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(back)
			if !bytes.Equal(got, before) {
				t.Fatalf("unpack is not byte-identical (%d vs %d bytes)", len(got), len(before))
			}
			assertNoTemps(t, filepath.Dir(in))
		})
	}
}

// companionHeaderBytes is the header space of every companion's info entry.
func companionHeaderBytes(rep *Report) int64 {
	g, err := ggufx.Open(rep.Output)
	if err != nil {
		return 0
	}
	defer g.Close()
	var n int64
	for _, t := range g.Tensors {
		if bitcos.IsCompanion(t.Name) {
			n += int64(ggufx.TensorInfoSize(t))
		}
	}
	return n
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWhitespaceTokensSurvive(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 7))
	out := filepath.Join(filepath.Dir(in), "o.gguf")
	if _, err := Repack(in, Options{Output: out}); err != nil {
		t.Fatal(err)
	}
	g, err := ggufx.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	kv, _ := g.KV("tokenizer.ggml.tokens")
	toks, _ := kv.StringArray()
	want := map[string]bool{" ": true, "\t": true, "\n": true, "  ": true}
	for _, tk := range toks {
		delete(want, tk)
	}
	if len(want) != 0 {
		t.Fatalf("whitespace-only tokens lost: %v", want)
	}
}

// TestVerifyCatchesDifferences makes sure verify can fail: one flipped bit
// anywhere that matters must be reported.
func TestVerifyCatchesDifferences(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 8))
	out := filepath.Join(filepath.Dir(in), "o.gguf")
	if _, err := Repack(in, Options{Output: out}); err != nil {
		t.Fatal(err)
	}
	g, err := ggufx.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	at := func(name string, delta uint64) int64 {
		i, ok := g.Tensor(name)
		if !ok {
			t.Fatalf("no tensor %s", name)
		}
		return int64(g.DataOffset + g.Tensors[i].Offset + delta)
	}
	kvOff := func() int64 { // a byte inside general.name's value
		data, _ := os.ReadFile(out)
		return int64(bytes.Index(data, []byte("gguf-bitcos generated")))
	}()
	cases := []struct {
		name string
		off  int64
		xor  byte
		want string // in the diffs
	}{
		{"sign bit", at("blk.0.ffn_up.bitcos_signs", 3), 0x04, `tensor "blk.0.ffn_up.weight": ternary value differs at row 0`},
		{"scale bit", at("blk.0.attn_k.bitcos_scales", 0), 0x01, `tensor "blk.0.attn_k.weight": scales differ (scale 0:`},
		{"norm byte", at("blk.1.ffn_norm.weight", 0), 0x01, `tensor "blk.1.ffn_norm.weight" (f32): data differs`},
		{"embedding byte", at("token_embd.weight", 100), 0x80, `tensor "token_embd.weight" (f16): data differs`},
		{"KV byte", kvOff, 0x01, `KV "general.name": value differs`},
	}
	g.Close()
	orig, _ := os.ReadFile(out)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(orig)
			bad[c.off] ^= c.xor
			p := filepath.Join(t.TempDir(), "bad.gguf")
			os.WriteFile(p, bad, 0o644)
			// Each flip leaves a well-formed file whose content differs:
			// verify reports it as a difference, not as an error.
			v, err := Verify(in, p)
			if err != nil {
				t.Fatalf("verify failed instead of reporting a difference: %v", err)
			}
			if v.OK() || len(v.Diffs) != 1 || !strings.Contains(v.Diffs[0], c.want) {
				t.Fatalf("verify reported %q, want one difference with %q", v.Diffs, c.want)
			}
		})
	}
}

func TestRepackRefuses(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 9))
	dir := filepath.Dir(in)
	out := filepath.Join(dir, "o.gguf")
	if _, err := Repack(in, Options{Output: out}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(in)
	trunc := filepath.Join(dir, "trunc.gguf")
	os.WriteFile(trunc, data[:len(data)/2], 0o644)
	// (A NaN scale keeps its tensor instead: TestBadScalesAreKept.)

	cases := []struct {
		name, in, out, want string
	}{
		{"already BITCOS", out, filepath.Join(dir, "x.gguf"), "already a BITCOS file"},
		{"truncated", trunc, filepath.Join(dir, "y.gguf"), "trunc.gguf"},
		{"in place", in, in, "the output would be the input"},
		{"missing", filepath.Join(dir, "none.gguf"), "", "none.gguf"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Repack(c.in, Options{Output: c.out})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			if c.out != "" && c.out != c.in {
				if _, err := os.Stat(c.out); err == nil {
					t.Fatalf("output %s written despite the error", c.out)
				}
			}
			assertNoTemps(t, dir)
		})
	}
}

func TestStatsTable(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 10))
	fs, err := Stats(in, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Tensors) != 14 {
		t.Fatalf("%d ternary tensors, want 14", len(fs.Tensors))
	}
	for _, ts := range fs.Tensors {
		if ts.Z < 0.25 || ts.Z > 0.6 {
			t.Errorf("%s: z = %.3f outside the generated range", ts.Name, ts.Z)
		}
		if ts.BitcosRawBPW != 2-ts.Z || ts.TwoBitBPW != 2.0625 || ts.FiveTritBPW != 1.625 || ts.TQ1BPW != 1.6875 {
			t.Errorf("%s: rates %v", ts.Name, ts)
		}
		if !(ts.EntropyBPW < ts.BitcosRawBPW) {
			t.Errorf("%s: entropy floor %.4f not below 2-z", ts.Name, ts.EntropyBPW)
		}
	}
	// Neuron 3 is dead in every layer (modelgen), and no other by chance.
	if len(fs.Dead) != 2 || fs.Dead[0].Count != 1 || fs.Dead[1].Count != 1 {
		t.Fatalf("dead neurons %+v, want one per layer", fs.Dead)
	}
}

// TestRepackCopyPaths runs repack with every copied tensor going through the
// in-kernel copy and then through the chunked copy.
func TestRepackCopyPaths(t *testing.T) {
	defer func(v uint64) { copyRangeMin = v }(copyRangeMin)
	for _, min := range []uint64{0, 1 << 62} {
		copyRangeMin = min
		s := modelgen.Small(ggufx.TypeTQ2_0, 12)
		s.OddTensor = true
		in := genModel(t, s)
		out := filepath.Join(filepath.Dir(in), "o.gguf")
		if _, err := Repack(in, Options{Output: out}); err != nil {
			t.Fatal(err)
		}
		if v, err := Verify(in, out); err != nil || !v.OK() {
			t.Fatalf("copyRangeMin %d: verify %v %+v", min, err, v)
		}
		back := filepath.Join(filepath.Dir(in), "back.gguf")
		if err := Unpack(out, back, false); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(in)
		b, _ := os.ReadFile(back)
		if !bytes.Equal(a, b) {
			t.Fatalf("copyRangeMin %d: unpack not byte-identical", min)
		}
	}
}
