package compat

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// The hostile-input campaign (issue 9): damaged variants of every committed
// fixture and of its repack (truncations, byte flips, lying counts, bad
// types, offsets, alignment, companion and bitcos.* damage), each given to
// every verb of the real binary. It counts panics and internal errors, an
// "OK" of verify on a file whose unpack is not the original, files left
// behind, inputs modified, errors that do not name the file, and peak
// memory; every count but the variants must be 0.

// variant is one damaged file: what it was made from and how.
type variant struct {
	name    string
	data    []byte
	orig    string // the clean original (stock) file
	packed  bool   // made from the repack (else from the stock file)
	origSum [32]byte
}

type campaignStats struct {
	variants, runs, panics, falseOK, leftovers, modified, unnamed, refused int
	// issue 34: outputs in the way written anyway (an existing file, the
	// input under another spelling, a folder, a missing folder)
	replaced int
}

// memLimit is the address space every run gets (prlimit --as): a lying
// header must not make a verb allocate what it claims. The fixtures are
// ~0.5 MB; Go's runtime itself needs about 1 GiB of address space.
const memLimit = 2 << 30

func TestHostileCampaign(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the campaign runs Linux processes under prlimit")
	}
	bin := buildCLI(t)
	var st campaignStats
	for _, fx := range []string{"tiny-tq2_0.gguf", "tiny-tq1_0.gguf", "tiny-q2_0.gguf", "tiny-i2_s.gguf"} {
		orig, _ := filepath.Abs(filepath.Join("..", "testdata", fx))
		stock, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		packedPath := filepath.Join(t.TempDir(), "p.gguf")
		if _, err := repack.Repack(orig, repack.Options{Output: packedPath}); err != nil {
			t.Fatal(err)
		}
		packed, _ := os.ReadFile(packedPath)
		sum := sha256.Sum256(stock)
		for _, v := range stockVariants(t, fx, stock) {
			v.orig, v.origSum = orig, sum
			runVariant(t, bin, v, &st)
		}
		for _, v := range packedVariants(t, fx, packed) {
			v.orig, v.origSum, v.packed = orig, sum, true
			runVariant(t, bin, v, &st)
		}
	}
	t.Logf("campaign: %d variants, %d runs (address space limited to %d GiB: %v): %d panics, crashes or internal errors, %d false OK, %d leftovers, %d inputs modified, %d errors not naming the file, %d outputs in the way not refused; %d refusals",
		st.variants, st.runs, memLimit>>30, prlimit != "", st.panics, st.falseOK, st.leftovers, st.modified, st.unnamed, st.replaced, st.refused)
	if st.variants < 500 {
		t.Errorf("only %d variants", st.variants)
	}
	if st.panics+st.falseOK+st.leftovers+st.modified+st.unnamed+st.replaced > 0 {
		t.Errorf("the campaign found failures (see above)")
	}
	if st.refused == 0 || st.refused == st.runs {
		t.Errorf("%d of %d runs refused: the campaign does not discriminate", st.refused, st.runs)
	}
}

// buildCLI builds the gguf-bitcos binary for the campaign.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gguf-bitcos")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/gguf-bitcos")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runVariant gives variant v to every verb, each in a fresh directory.
func runVariant(t *testing.T, bin string, v variant, st *campaignStats) {
	st.variants++
	dir := t.TempDir()
	p := filepath.Join(dir, "in.gguf")
	if err := os.WriteFile(p, v.data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(v.data)
	out := filepath.Join(dir, "out.gguf")
	verbs := [][]string{
		{"stats", p},
		{"verify", v.orig, p},
		{"card", p, "-o", filepath.Join(dir, "card")},
	}
	if v.packed {
		verbs = append(verbs, []string{"unpack", p, "-o", out})
	} else {
		verbs = append(verbs, []string{"repack", "-q", p, "-o", out})
	}
	verifyOK := false
	allowed := map[string]bool{"in.gguf": true} // what may be in dir: the input and successful outputs
	outputOf := map[string]string{"unpack": "out.gguf", "repack": "out.gguf", "card": "card"}
	for _, args := range verbs {
		st.runs++
		code, stderr := runCLI(bin, args)
		fail := func(what string, n *int) {
			*n++
			t.Errorf("%s: %s: %s (exit %d): %s", v.name, what, strings.Join(args, " "), code, firstLine(stderr))
		}
		switch {
		case code == 70 || code < 0 || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error"):
			fail("panic, crash or internal error", &st.panics)
		case code == 1 && !strings.Contains(stderr, "in.gguf") && !strings.Contains(stderr, v.orig):
			fail("error without the file's name", &st.unnamed)
		}
		if code != 0 {
			st.refused++
		} else if o := outputOf[args[0]]; o != "" {
			allowed[o] = true
		}
		if args[0] == "verify" && code == 0 {
			verifyOK = true
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if !allowed[e.Name()] {
				fail("left behind "+e.Name(), &st.leftovers)
			}
		}
	}
	if st.variants%4 == 0 { // a quarter of the variants: the refusals come before any work
		outputsInTheWay(t, bin, v, dir, allowed, st)
	}
	if b, _ := os.ReadFile(p); sha256.Sum256(b) != sum {
		st.modified++
		t.Errorf("%s: the input was modified", v.name)
	}
	if b, _ := os.ReadFile(v.orig); sha256.Sum256(b) != v.origSum {
		st.modified++
		t.Errorf("%s: the original %s was modified", v.name, v.orig)
	}
	// An OK must be true: the variant unpacks to the original.
	if verifyOK && v.packed {
		back := filepath.Join(dir, "back.gguf")
		code, stderr := runCLI(bin, []string{"unpack", p, "-o", back})
		want, _ := os.ReadFile(v.orig)
		if got, _ := os.ReadFile(back); code != 0 || !bytes.Equal(got, want) {
			st.falseOK++
			t.Errorf("%s: verify said OK, but unpack gives another file (exit %d: %s)", v.name, code, firstLine(stderr))
		}
	}
}

// outputsInTheWay (issue 34) gives variant v (at dir/in.gguf) to the verb
// that writes from it (repack, or unpack for a repack) with an output in
// the way: an existing file without --force, the input under another
// spelling with --force, a folder, a folder that does not exist. Each must
// be refused without a panic, the file in the way unchanged and nothing
// left behind. Then verify with the variant as its own repack and with the
// arguments swapped: never an OK (exit 0), as neither proves a repack.
func outputsInTheWay(t *testing.T, bin string, v variant, dir string, allowed map[string]bool, st *campaignStats) {
	p := filepath.Join(dir, "in.gguf")
	keep := filepath.Join(dir, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	allowed["keep.txt"], allowed["sub"] = true, true
	verb := []string{"repack", "-q"}
	if v.packed {
		verb = []string{"unpack"}
	}
	for _, o := range []struct {
		out   string
		force bool
	}{
		{keep, false},
		{filepath.Join(dir, "sub", "..", "in.gguf"), true},
		{filepath.Join(dir, "sub"), true},
		{filepath.Join(dir, "nodir", "x.gguf"), false},
	} {
		args := append(append([]string(nil), verb...), p, "-o", o.out)
		if o.force {
			args = append(args, "--force")
		}
		st.runs++
		code, stderr := runCLI(bin, args)
		switch {
		case code == 70 || code < 0 || strings.Contains(stderr, "panic:") || strings.Contains(stderr, "fatal error"):
			st.panics++
			t.Errorf("%s: panic, crash or internal error: %s (exit %d): %s", v.name, strings.Join(args, " "), code, firstLine(stderr))
		case code == 0:
			st.replaced++
			t.Errorf("%s: %s wrote over an output in the way", v.name, strings.Join(args, " "))
		case strings.Contains(stderr, ".tmp-"):
			st.unnamed++
			t.Errorf("%s: %s: the error names a temporary: %s", v.name, strings.Join(args, " "), firstLine(stderr))
		}
		st.refused++
	}
	if b, _ := os.ReadFile(keep); string(b) != "mine\n" {
		st.replaced++
		t.Errorf("%s: keep.txt was replaced", v.name)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "sub")); len(ents) != 0 {
		st.leftovers++
		t.Errorf("%s: left in sub/: %v", v.name, ents)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !allowed[e.Name()] {
			st.leftovers++
			t.Errorf("%s: left behind %s", v.name, e.Name())
		}
	}
	for _, args := range [][]string{{"verify", p, p}, {"verify", p, v.orig}} {
		st.runs++
		code, stderr := runCLI(bin, args)
		switch {
		case code == 70 || code < 0 || strings.Contains(stderr, "panic:"):
			st.panics++
			t.Errorf("%s: panic, crash or internal error: %s (exit %d): %s", v.name, strings.Join(args, " "), code, firstLine(stderr))
		case code == 0:
			st.falseOK++
			t.Errorf("%s: %s said OK", v.name, strings.Join(args, " "))
		}
		st.refused++
	}
}

// prlimit runs a command with a resource limit (util-linux); "" when absent.
var prlimit, _ = exec.LookPath("prlimit")

// runCLI runs the binary under memLimit and returns its exit status (-1
// when a signal killed it) and stderr.
func runCLI(bin string, args []string) (int, string) {
	cmd := exec.Command(bin, args...)
	if prlimit != "" {
		cmd = exec.Command(prlimit, append([]string{fmt.Sprintf("--as=%d", memLimit), "--", bin}, args...)...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// --- variants ---

// commonVariants damage any GGUF file: truncations, byte flips, lying
// counts, bad tensor types, offsets and alignment.
func commonVariants(t *testing.T, tag string, data []byte, seed uint64) []variant {
	var vs []variant
	add := func(name string, b []byte) { vs = append(vs, variant{name: tag + ": " + name, data: b}) }
	f, err := ggufx.Parse(bytes.NewReader(data), int64(len(data)), tag)
	if err != nil {
		t.Fatal(err)
	}
	// Truncations: inside the fixed header, the KVs, the tensor infos, the
	// data, and one byte short.
	for _, at := range []int{0, 3, 7, 15, 23, 40, 200, int(f.DataOffset) - 9, int(f.DataOffset), int(f.DataOffset) + 100,
		len(data) / 2, len(data) * 3 / 4, len(data) - 33, len(data) - 1} {
		if at >= 0 && at < len(data) {
			add(fmt.Sprintf("cut at %d", at), bytes.Clone(data[:at]))
		}
	}
	// Byte flips: header region densely, data sparsely.
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 30; i++ {
		b := bytes.Clone(data)
		off := rng.IntN(int(f.DataOffset))
		if i >= 20 {
			off = rng.IntN(len(data))
		}
		b[off] ^= byte(1 << rng.IntN(8))
		add(fmt.Sprintf("flip at %d", off), b)
	}
	// Lying counts: tensor and KV counts (GGUF v3: u64 at 8 and 16).
	for _, c := range []struct {
		at  int
		val uint64
	}{{8, 0}, {8, uint64(len(f.Tensors)) + 1}, {8, 1 << 40}, {8, math.MaxUint64}, {16, 0}, {16, uint64(len(f.KVs)) + 1}, {16, 1 << 40}, {16, math.MaxUint64}} {
		b := bytes.Clone(data)
		binary.LittleEndian.PutUint64(b[c.at:], c.val)
		add(fmt.Sprintf("count at %d = %d", c.at, c.val), b)
	}
	// Tensor infos: type, first dim, offset of a few tensors.
	for n, ti := range f.Tensors {
		if n%7 != 1 || n > 22 { // three tensors: an attention and an FFN projection, a norm
			continue
		}
		pos := infoPos(data, ti.Name)
		if pos < 0 {
			t.Fatalf("%s: no tensor info for %s", tag, ti.Name)
		}
		typePos := pos + 4 + 8*len(ti.Dims)
		for _, typ := range []uint32{4, 36, 42, 96, 200, math.MaxUint32} {
			b := bytes.Clone(data)
			binary.LittleEndian.PutUint32(b[typePos:], typ)
			add(fmt.Sprintf("%s type %d", ti.Name, typ), b)
		}
		for _, d := range []uint64{0, 1, ti.Dims[0] * 2, 1 << 40, math.MaxUint64} {
			b := bytes.Clone(data)
			binary.LittleEndian.PutUint64(b[pos+4:], d)
			add(fmt.Sprintf("%s dim0 %d", ti.Name, d), b)
		}
		for _, o := range []uint64{ti.Offset + 1, ti.Offset + 32, 1 << 40, math.MaxUint64 - 31, 0} {
			b := bytes.Clone(data)
			binary.LittleEndian.PutUint64(b[typePos+4:], o)
			add(fmt.Sprintf("%s offset %d", ti.Name, o), b)
		}
	}
	// Alignment.
	for _, a := range []uint32{0, 3, 16, 64, 1 << 30} {
		b, err := corrupt.Rewrite(data, func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(ggufx.KeyAlignment, 32)) })
		if err != nil {
			t.Fatal(err)
		}
		// Rewritten at 32, then the value alone changed: the data is laid
		// out for 32 while the header claims a.
		i := bytes.Index(b, []byte(ggufx.KeyAlignment))
		binary.LittleEndian.PutUint32(b[i+len(ggufx.KeyAlignment)+4:], a)
		add(fmt.Sprintf("alignment %d", a), b)
	}
	return vs
}

// infoPos finds the tensor info of name: the offset just after its name.
func infoPos(data []byte, name string) int {
	key := binary.LittleEndian.AppendUint64(nil, uint64(len(name)))
	key = append(key, name...)
	i := bytes.Index(data, key)
	if i < 0 {
		return -1
	}
	return i + len(key)
}

func stockVariants(t *testing.T, tag string, data []byte) []variant {
	return commonVariants(t, tag, data, 1)
}

// packedVariants add BITCOS damage to the common kinds: companions (row
// index, sign stream and its tail, bitmap, scales, dims, names) and the
// bitcos.* KVs.
func packedVariants(t *testing.T, tag string, data []byte) []variant {
	tag += " repacked"
	vs := commonVariants(t, tag, data, 2)
	add := func(name string, b []byte) { vs = append(vs, variant{name: tag + ": " + name, data: b}) }
	f, err := ggufx.Parse(bytes.NewReader(data), int64(len(data)), tag)
	if err != nil {
		t.Fatal(err)
	}
	at := func(name string) (int, ggufx.TensorInfo) {
		i, ok := f.Tensor(name)
		if !ok {
			t.Fatalf("%s: no %s", tag, name)
		}
		return int(f.DataOffset + f.Tensors[i].Offset), f.Tensors[i]
	}
	var weights []string
	for _, ti := range f.Tensors {
		if ti.Type == ggufx.TypeBITCOS {
			weights = append(weights, ti.Name)
		}
	}
	for n, w := range weights {
		if n%5 != 0 || n > 10 {
			continue
		}
		base := bitcos.CompanionBase(w)
		rows, rt := at(base + bitcos.SuffixRows)
		signs, s := at(base + bitcos.SuffixSigns)
		bm, bt := at(w)
		sc, _ := at(base + bitcos.SuffixScales)
		edits := []struct {
			name string
			off  int
			put  func(b []byte)
		}{
			{"row index +1", rows + 4, func(b []byte) { b[0]++ }},
			{"row index start 1", rows, func(b []byte) { b[0] = 1 }},
			{"row index huge", rows + 8, func(b []byte) { binary.LittleEndian.PutUint32(b, 0x7fffffff) }},
			{"row index last short", rows + int(rt.Size) - 4, func(b []byte) { b[0]-- }},
			{"sign tail non-zero", signs + int(s.Size) - 1, func(b []byte) { b[0] = 1 }},
			{"sign bit", signs + 2, func(b []byte) { b[0] ^= 0x10 }},
			{"bitmap bit", bm + int(bt.Size)/2, func(b []byte) { b[0] ^= 0x01 }},
			{"bitmap byte", bm + 3, func(b []byte) { b[0] ^= 0xff }},
			{"scale NaN", sc, func(b []byte) { b[0], b[1] = 0x00, 0x7e }},
			{"scale Inf", sc, func(b []byte) { b[0], b[1] = 0x00, 0x7c }},
		}
		for _, e := range edits {
			b := bytes.Clone(data)
			e.put(b[e.off:])
			add(w+" "+e.name, b)
		}
		for _, h := range []struct {
			name string
			edit func(h *ggufx.Header)
		}{
			{"signs dropped", func(h *ggufx.Header) {
				i := corrupt.TensorIndex(h, base+bitcos.SuffixSigns)
				h.Tensors = append(h.Tensors[:i], h.Tensors[i+1:]...)
			}},
			{"rows retyped", func(h *ggufx.Header) { h.Tensors[corrupt.TensorIndex(h, base+bitcos.SuffixRows)].Type = ggufx.TypeF32 }},
			{"scales reshaped", func(h *ggufx.Header) {
				ti := &h.Tensors[corrupt.TensorIndex(h, base+bitcos.SuffixScales)]
				ti.Dims = []uint64{ti.Dims[0] * 2, ti.Dims[len(ti.Dims)-1] / 2}
			}},
			{"signs longer", func(h *ggufx.Header) {
				ti := &h.Tensors[corrupt.TensorIndex(h, base+bitcos.SuffixSigns)]
				ti.Dims = []uint64{ti.Dims[0] + 64}
			}},
			{"weight renamed", func(h *ggufx.Header) { h.Tensors[corrupt.TensorIndex(h, w)].Name = w + "x" }},
			{"weight made TQ2_0", func(h *ggufx.Header) { h.Tensors[corrupt.TensorIndex(h, w)].Type = ggufx.TypeTQ2_0 }},
		} {
			b, err := corrupt.Rewrite(data, h.edit)
			if err != nil {
				continue // not writable as GGUF: the byte-level variants cover it
			}
			add(w+" "+h.name, b)
		}
	}
	// bitcos.* KVs.
	for _, h := range []struct {
		name string
		edit func(h *ggufx.Header)
	}{
		{"version renamed", func(h *ggufx.Header) { corrupt.RenameKV(h, bitcos.KeyVersion, "bitcos.versioX") }},
		{"version 0", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 0)) }},
		{"version 2", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 2)) }},
		{"version 7", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 7)) }},
		{"version max", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, math.MaxUint32)) }},
		{"version int8", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVInt8(bitcos.KeyVersion, 1)) }},
		{"source types dropped", func(h *ggufx.Header) { corrupt.DeleteKV(h, bitcos.KeySourceTypes) }},
		{"source type 0 swapped", func(h *ggufx.Header) { swapSource(h, 0, "tq1_0") }},
		{"source type 0 q2_0", func(h *ggufx.Header) { swapSource(h, 0, "q2_0") }},
		{"source type 1 bogus", func(h *ggufx.Header) { swapSource(h, 1, "q9_9") }},
		{"source type last i2_s", func(h *ggufx.Header) { swapSource(h, -1, "i2_s") }},
		{"source type last tq2_0", func(h *ggufx.Header) { swapSource(h, -1, "tq2_0") }},
		{"z NaN", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, float32(math.NaN()))) }},
		{"z -NaN", func(h *ggufx.Header) {
			corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, math.Float32frombits(0xffc00000)))
		}},
		{"z Inf", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, float32(math.Inf(1)))) }},
		{"z 0.9", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, 0.9)) }},
		{"z missing", func(h *ggufx.Header) { corrupt.DeleteKV(h, bitcos.KeyZeroDensity) }},
		{"source type missing", func(h *ggufx.Header) { corrupt.DeleteKV(h, bitcos.KeySourceType) }},
		{"unknown bitcos key", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString("bitcos.note", "hi")) }},
		{"general.name changed", func(h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString("general.name", "other")) }},
	} {
		b, err := corrupt.Rewrite(data, h.edit)
		if err != nil {
			t.Fatalf("%s: %s: %v", tag, h.name, err)
		}
		add(h.name, b)
	}
	return vs
}

// swapSource sets entry n (-1: the last) of bitcos.source_types.
func swapSource(h *ggufx.Header, n int, s string) {
	i := corrupt.KVIndex(h, bitcos.KeySourceTypes)
	items, _ := h.KVs[i].StringArray()
	if n < 0 {
		n = len(items) - 1
	}
	if n < len(items) {
		corrupt.SetStringArrayItem(h, bitcos.KeySourceTypes, n, s)
	}
}
