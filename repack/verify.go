package repack

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// VerifyResult lists what differs between an original and its repack.
type VerifyResult struct {
	Original, Repacked string
	TensorsChecked     int
	TernaryChecked     int
	KVsChecked         int
	HeadsChecked       int // quantized heads compared with the reference quantization
	Diffs              []string
	MoreDiffs          int // differences beyond the listed ones
}

// OK reports whether nothing differs.
func (v *VerifyResult) OK() bool { return len(v.Diffs) == 0 }

func (v *VerifyResult) diff(format string, a ...any) {
	if len(v.Diffs) < v.maxDiffs() {
		v.Diffs = append(v.Diffs, fmt.Sprintf(format, a...))
	} else {
		v.MoreDiffs++
	}
}

func (v *VerifyResult) maxDiffs() int { return 20 }

// Verify proves that repacked holds exactly what original holds: every KV of
// the original, in order, with the same type and bytes (the repack may add
// bitcos.* KVs at the end); every tensor of the original, in order; ternary
// tensors compared as decoded codes and scale bits, everything else byte for
// byte. Either file may be a BITCOS file or a stock one, so the same check
// serves unpack. A float master's projections, against ternary tensors, are
// ternarized first (master.go): the check then proves the repack equals the
// ternarization.
func Verify(original, repacked string) (*VerifyResult, error) {
	a, doneA, err := openJoined(original)
	if err != nil {
		return nil, err
	}
	defer doneA()
	defer a.Close()
	b, doneB, err := openJoined(repacked)
	if err != nil {
		return nil, err
	}
	defer doneB()
	defer b.Close()
	v := &VerifyResult{Original: original, Repacked: repacked}
	if a.Version != b.Version {
		v.diff("GGUF version %d vs %d", a.Version, b.Version)
	}
	if a.Alignment != b.Alignment {
		v.diff("alignment %d vs %d", a.Alignment, b.Alignment)
	}
	compareKVs(v, a.File, b.File)
	names := func(f *input) []int {
		var idx []int
		for i, t := range f.Tensors {
			if !isCompanion(t.Name) {
				idx = append(idx, i)
			}
		}
		return idx
	}
	ia, ib := names(a), names(b)
	if len(ia) != len(ib) {
		v.diff("%d tensors vs %d (companions not counted)", len(ia), len(ib))
	}
	var ba, bb tensorBuf
	for j := 0; j < min(len(ia), len(ib)); j++ {
		ta, tb := a.Tensors[ia[j]], b.Tensors[ib[j]]
		if ta.Name != tb.Name {
			v.diff("tensor %d is %q vs %q", j, ta.Name, tb.Name)
			continue
		}
		if !equalDims(ta.Dims, tb.Dims) {
			v.diff("tensor %q: shape %v vs %v", ta.Name, ta.Dims, tb.Dims)
			continue
		}
		v.TensorsChecked++
		if ta.Type == tb.Type && ta.Type != ggufx.TypeBITCOS {
			same, err := sameBytes(a, ia[j], b, ib[j])
			if err != nil {
				return nil, err
			}
			if !same {
				v.diff("tensor %q (%v): data differs", ta.Name, ta.Type)
			}
			continue
		}
		if _, ok := headOf(tb.Type); ok && isFloatType(ta.Type) {
			same, err := sameHead(a, ia[j], b, ib[j], runtime.GOMAXPROCS(0))
			if err != nil {
				return nil, err
			}
			v.HeadsChecked++
			if !same {
				v.diff("tensor %q: %v is not the reference quantization of the original %v", ta.Name, tb.Type, ta.Type)
			}
			continue
		}
		okA, okB := isTernaryType(ta.Type) || ternarizable(ta), isTernaryType(tb.Type)
		if !okA || !okB {
			v.diff("tensor %q: type %v vs %v", ta.Name, ta.Type, tb.Type)
			continue
		}
		if err := loadAny(a, ia[j], &ba); err != nil {
			return nil, err
		}
		if err := loadAny(b, ib[j], &bb); err != nil {
			return nil, err
		}
		v.TernaryChecked++
		if r, e, d := format.FirstDiff(&ba.p, &bb.p); d {
			v.diff("tensor %q: ternary value differs at row %d element %d (%d vs %d)", ta.Name, r, e, ba.p.Value(r, e), bb.p.Value(r, e))
		}
		if !equalScales(&ba.s, &bb.s) {
			v.diff("tensor %q: scales differ (%s)", ta.Name, scaleDiff(&ba.s, &bb.s))
		}
	}
	return v, nil
}

func isTernaryType(t ggufx.GGMLType) bool { return t == ggufx.TypeBITCOS || format.CodecFor(t) != nil }

// loadAny loads a stock ternary tensor or a BITCOS family.
func loadAny(f *input, i int, b *tensorBuf) error {
	if f.Tensors[i].Type == ggufx.TypeBITCOS {
		return loadBitcos(f, i, b)
	}
	if ternarizable(f.Tensors[i]) {
		return loadMaster(f, i, b)
	}
	return loadStock(f, i, b)
}

func scaleDiff(a, b *format.Scales) string {
	switch {
	case a.Group != b.Group:
		return fmt.Sprintf("group %d vs %d", a.Group, b.Group)
	case a.F32 != b.F32:
		return fmt.Sprintf("f32 bits %#08x vs %#08x", a.F32, b.F32)
	case !equalTail(a.Tail, b.Tail):
		return "I2_S tail bytes differ"
	case len(a.F16) != len(b.F16):
		return fmt.Sprintf("%d vs %d scales", len(a.F16), len(b.F16))
	}
	for i := range a.F16 {
		if a.F16[i] != b.F16[i] {
			return fmt.Sprintf("scale %d: fp16 bits %#04x vs %#04x", i, a.F16[i], b.F16[i])
		}
	}
	return "?"
}

// compareKVs checks b's KVs equal a's, both without bitcos.* and split.* keys.
func compareKVs(v *VerifyResult, a, b *ggufx.File) {
	strip := func(kvs []ggufx.KV) []ggufx.KV {
		var out []ggufx.KV
		for _, kv := range kvs {
			// bitcos.* describe the repack; split.* the shard container
			// (llama-gguf-split --merge leaves them in the merged file).
			if !strings.HasPrefix(kv.Key, KeyPrefix) && !isSplitKey(kv.Key) {
				out = append(out, kv)
			}
		}
		return out
	}
	ka, kb := strip(a.KVs), strip(b.KVs)
	if len(ka) != len(kb) {
		v.diff("%d KVs vs %d (bitcos.* not counted)", len(ka), len(kb))
	}
	for i := 0; i < min(len(ka), len(kb)); i++ {
		v.KVsChecked++
		x, y := ka[i], kb[i]
		switch {
		case x.Key != y.Key:
			v.diff("KV %d: key %q vs %q", i, x.Key, y.Key)
		case x.Type != y.Type:
			v.diff("KV %q: type %v vs %v", x.Key, x.Type, y.Type)
		case !bytes.Equal(x.Raw, y.Raw):
			v.diff("KV %q: value differs", x.Key)
		}
	}
}

func equalDims(a, b []uint64) bool { return slices.Equal(a, b) }

// sameBytes streams two tensors and compares them.
func sameBytes(a *input, i int, b *input, j int) (bool, error) {
	if a.data != nil && b.data != nil {
		da, err := a.tensor(i, nil)
		if err != nil {
			return false, err
		}
		db, err := b.tensor(j, nil)
		if err != nil {
			return false, err
		}
		return bytes.Equal(da, db), nil
	}
	ra, rb := a.Section(i), b.Section(j)
	if ra.Size() != rb.Size() {
		return false, nil
	}
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, ea := io.ReadFull(ra, ba)
		nb, eb := io.ReadFull(rb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return true, nil
		}
		if ea != nil {
			return false, fmt.Errorf("%s: tensor %q: %w", a.Path, a.Tensors[i].Name, ea)
		}
		if eb != nil && eb != io.EOF && eb != io.ErrUnexpectedEOF {
			return false, fmt.Errorf("%s: tensor %q: %w", b.Path, b.Tensors[j].Name, eb)
		}
	}
}
