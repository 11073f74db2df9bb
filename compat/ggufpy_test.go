package compat

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// ggufPyScript decodes a repack with gguf-py and compares it with its source
// and with Go references (see its header).
const ggufPyScript = "testdata/ggufpy_compare.py"

// ggufPy returns a python3 with numpy and a gguf-py folder carrying patch
// 0010 (gguf/bitcos.py): $GGUF_BITCOS_GGUF_PY (llama.cpp's gguf-py with
// patches/ applied; CI has no llama.cpp checkout) and $GGUF_BITCOS_PYTHON
// (default python3 on PATH).
func ggufPy(t *testing.T) (python, dir string) {
	dir = os.Getenv("GGUF_BITCOS_GGUF_PY")
	if dir == "" {
		t.Skip("GGUF_BITCOS_GGUF_PY is not set (llama.cpp's gguf-py folder with patches/ applied)")
	}
	python = os.Getenv("GGUF_BITCOS_PYTHON")
	if python == "" {
		python = "python3"
	}
	p, err := exec.LookPath(python)
	if err != nil {
		t.Skipf("no %s (set GGUF_BITCOS_PYTHON): %v", python, err)
	}
	if out, err := exec.Command(p, "-c", "import numpy").CombinedOutput(); err != nil {
		t.Skipf("%s has no numpy (set GGUF_BITCOS_PYTHON to one that has): %v\n%s", p, err, out)
	}
	// Set but without the patch is a mistake, not a missing tool.
	if _, err := os.Stat(filepath.Join(dir, "gguf", "bitcos.py")); err != nil {
		t.Fatalf("GGUF_BITCOS_GGUF_PY=%s is not a gguf-py with patch 0010 applied: %v", dir, err)
	}
	return p, dir
}

// pyCompare is the script's JSON summary.
type pyCompare struct {
	Bitcos        int      `json:"bitcos"`
	Kept          int      `json:"kept"`
	Companions    int      `json:"companions"`
	KeptUnchecked int      `json:"kept_unchecked"`
	RefGGUFPy     int      `json:"ref_gguf_py"`
	RefGo         int      `json:"ref_go"`
	SourceNote    string   `json:"source_note"`
	Errors        []string `json:"errors"`
}

// runCompare runs the script; ok is its exit status 0.
func runCompare(t *testing.T, python, ggufPyDir string, args ...string) (sum pyCompare, stderr string, ok bool) {
	cmd := exec.Command(python, append([]string{ggufPyScript}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+ggufPyDir+string(os.PathListSeparator)+os.Getenv("PYTHONPATH"))
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("%s: %v", ggufPyScript, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	if jerr := json.Unmarshal([]byte(line), &sum); jerr != nil {
		t.Fatalf("%s %v: no summary (%v)\nstdout: %s\nstderr: %s", ggufPyScript, args, jerr, out, errb.String())
	}
	return sum, errb.String(), err == nil
}

// TestGGUFPyDecodesBITCOS: gguf-py with patch 0010 decodes every BITCOS
// tensor of a repack to the float32 bits of its source tensor, for every
// source type. References: the source decoded by gguf-py's own dequantize
// where it has one (TQ2_0, TQ1_0) and, always, by this project's Go codecs
// (the only reference for Q2_0, which gguf-py cannot dequantize at the pin,
// and I2_S, whose files it cannot even open: type 36 is unknown upstream).
// Some scales are made negative first, so that -0.0 (0 times a negative
// scale) is compared too. Broken decodes must fail the same comparison.
func TestGGUFPyDecodesBITCOS(t *testing.T) {
	python, dir := ggufPy(t)
	tq2 := modelgen.Small(ggufx.TypeTQ2_0, 7)
	tq2.HeadType, tq2.Experts, tq2.OddTensor = ggufx.TypeTQ2_0, 4, true // ternary embedding (GET_ROWS), 3-D experts
	tq1 := modelgen.Small(ggufx.TypeTQ1_0, 8)
	tq1.HeadType, tq1.Experts = ggufx.TypeTQ1_0, 2
	tq1.ZMin, tq1.ZMax = 0.30, 0.60 // against TQ1_0 only z > 0.3875 gains: some tensors kept
	q2 := modelgen.Small(ggufx.TypeQ2_0, 9)
	q2.OddTensor, q2.NonTernary = true, true // K = 192 and a code 3: two Q2_0 tensors kept
	i2s := modelgen.Small(ggufx.TypeI2_S, 10)
	// No --non-ternary here: a kept I2_S tensor would make the repack, too,
	// a file gguf-py cannot open.
	i2s.Arch, i2s.ScaleTensors, i2s.Experts = "bitnet-b1.58", true, 2
	cases := []struct {
		name      string
		spec      modelgen.Spec
		ggufPyRef bool // gguf-py dequantizes the source type
		readable  bool // gguf-py opens the source file
	}{
		{"tq2_0", tq2, true, true},
		{"tq1_0", tq1, true, true},
		{"q2_0", q2, false, true},
		{"i2_s", i2s, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src, out, refs, rep := bitcosFixture(t, c.spec)
			sum, stderr, ok := runCompare(t, python, dir, out, src, "--ref", refs)
			if !ok {
				t.Fatalf("gguf-py decode differs:\n%s", stderr)
			}
			n := rep.Converted
			if sum.Bitcos != n || sum.RefGo != n || sum.Companions != 3*n {
				t.Fatalf("script saw %d BITCOS tensors (%d Go references, %d companions); the repack converted %d", sum.Bitcos, sum.RefGo, sum.Companions, n)
			}
			if want := map[bool]int{true: n}[c.ggufPyRef]; sum.RefGGUFPy != want {
				t.Fatalf("%d tensors compared with gguf-py's dequantize of the source, want %d", sum.RefGGUFPy, want)
			}
			if (sum.SourceNote == "") != c.readable || sum.KeptUnchecked != 0 || sum.Kept != len(rep.Tensors)-n {
				t.Fatalf("source readable by gguf-py: %q; %d kept tensors, %d unchecked; the repack kept %d", sum.SourceNote, sum.Kept, sum.KeptUnchecked, len(rep.Tensors)-n)
			}
			if c.name == "q2_0" && rep.Kept < 2 {
				t.Fatalf("%d Q2_0 tensors kept, want the odd and the non-ternary one", rep.Kept)
			}
			t.Logf("%d BITCOS tensors bit-identical (%d against gguf-py, %d against Go), %d kept tensors byte-identical (read by %s)",
				sum.Bitcos, sum.RefGGUFPy, sum.RefGo, sum.Kept, map[bool]string{true: "gguf-py", false: "Go: gguf-py cannot open the source"}[c.readable])
		})
	}

	// Each deliberate bug must be caught by the bit comparison (not by a
	// crash or a missing hook: the failure must name a difference).
	t.Run("broken", func(t *testing.T) {
		src, out, refs, _ := bitcosFixture(t, tq2)
		for _, mode := range []string{"sign-cursor", "zero-sign", "scale-layout"} {
			_, stderr, ok := runCompare(t, python, dir, out, src, "--ref", refs, "--break", mode)
			if ok || !strings.Contains(stderr, "decode differs from") {
				t.Errorf("--break %s: passed = %v, want a reported difference\n%s", mode, ok, stderr)
				continue
			}
			first, _, _ := strings.Cut(stderr, "\n")
			t.Logf("--break %s fails: %s", mode, first)
		}
	})
}

// bitcosFixture writes s with some scales negated, repacks it and writes the
// Go references into a folder: the float32 values of each converted tensor
// (<name>.f32) and the source bytes of each kept one (<name>.raw).
func bitcosFixture(t *testing.T, s modelgen.Spec) (src, out, refs string, rep *repack.Report) {
	dir := t.TempDir()
	src = filepath.Join(dir, "src.gguf")
	if err := modelgen.Write(src, s); err != nil {
		t.Fatal(err)
	}
	negateScales(t, src)
	out = filepath.Join(dir, "bitcos.gguf")
	rep, err := repack.Repack(src, repack.Options{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Converted == 0 || rep.NotWritten != "" {
		t.Fatalf("nothing converted (%s)", rep.NotWritten)
	}
	refs = filepath.Join(dir, "refs")
	if err := os.Mkdir(refs, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := ggufx.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, d := range rep.Tensors {
		i, _ := f.Tensor(d.Name)
		if d.Layout != repack.LayoutBitcos {
			raw, err := f.ReadTensor(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(refs, d.Name+".raw"), raw, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		vals := decodeFloats(t, f, i)
		buf := make([]byte, 4*len(vals))
		for j, v := range vals {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(v))
		}
		if err := os.WriteFile(filepath.Join(refs, d.Name+".f32"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src, out, refs, rep
}

// decodeFloats is ggml's to_float of a ternary tensor, from the Go codecs:
// (float) t * d, one float32 multiply (no sum: no FMA contraction possible).
func decodeFloats(t *testing.T, f *ggufx.File, i int) []float32 {
	ti := f.Tensors[i]
	k := int(ti.Dims[0])
	rows := int(ti.Elements()) / k
	raw, err := f.ReadTensor(i, nil)
	if err != nil {
		t.Fatal(err)
	}
	var p format.Planes
	var s format.Scales
	if err := format.CodecFor(ti.Type).Decode(raw, k, rows, &p, &s); err != nil {
		t.Fatalf("%s: %v", ti.Name, err)
	}
	out := make([]float32, k*rows)
	for r := range rows {
		for j := range k {
			d := math.Float32frombits(s.F32)
			if s.Group != 0 {
				d = float16.Frombits(s.F16[r*(k/s.Group)+j/s.Group]).Float32()
			}
			out[r*k+j] = float32(p.Value(r, j)) * d
		}
	}
	return out
}

// negateScales flips the sign of every third fp16 scale of each ternary
// tensor (every other tensor's f32 scale for I2_S), re-encoding it in place,
// so that zeros in those blocks decode to -0.0.
func negateScales(t *testing.T, path string) {
	f, err := ggufx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var p format.Planes
	var s format.Scales
	negated := 0
	for i, ti := range f.Tensors {
		c := format.CodecFor(ti.Type)
		k := int(ti.Dims[0])
		if c == nil || !c.Supports(k) {
			continue
		}
		raw, err := f.ReadTensor(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.Decode(raw, k, int(ti.Elements())/k, &p, &s) != nil {
			continue // the non-ternary tensor: left as it is
		}
		if s.Group == 0 {
			if i%2 == 0 {
				s.F32 ^= 1 << 31
				negated++
			}
		} else {
			for j := 0; j < len(s.F16); j += 3 {
				s.F16[j] ^= 1 << 15
				negated++
			}
		}
		if err := c.Encode(&p, &s, raw); err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteAt(raw, int64(f.DataOffset+ti.Offset)); err != nil {
			t.Fatal(err)
		}
	}
	if negated == 0 {
		t.Fatal("no scale negated")
	}
}
