package repack

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
)

// VerifyOptions control Verify.
type VerifyOptions struct {
	// Fast skips the round trip: the streamed unpack of the repack compared
	// with the original byte for byte.
	Fast bool
}

// VerifyResult lists what differs between an original and its repack.
type VerifyResult struct {
	Original string `json:"original"`
	Repacked string `json:"repacked"`
	// Verdict is what the comparison proves (Verdict*); Reason says why,
	// in words, when it is not VerdictOK.
	Verdict        string `json:"verdict"`
	Reason         string `json:"reason,omitempty"`
	TensorsChecked int    `json:"tensors_checked"`
	// TernaryChecked counts the tensors that are ternary in the repacked
	// file (BITCOS, or a stock ternary type kept or ternarized into);
	// BitcosChecked those of them stored as BITCOS, compared with the
	// original as decoded codes and scale bits.
	TernaryChecked int `json:"ternary_checked"`
	BitcosChecked  int `json:"bitcos_checked"`
	// BytesChecked counts the tensors compared byte for byte (same type
	// in both files, BITCOS aside).
	BytesChecked int `json:"bytes_checked"`
	KVsChecked   int `json:"kvs_checked"`
	HeadsChecked int `json:"heads_checked"` // quantized heads compared with the reference quantization
	// RoundTrip says what the round trip proved: RoundTripIdentical,
	// RoundTripCanonical, or why it did not run.
	RoundTrip string   `json:"round_trip"`
	Diffs     []string `json:"diffs"`
	MoreDiffs int      `json:"more_diffs"` // differences beyond the listed ones
}

// Round-trip outcomes (VerifyResult.RoundTrip) other than a reason it did
// not run.
const (
	// RoundTripIdentical: unpack of the repack is the original byte for byte.
	RoundTripIdentical = "identical"
	// RoundTripCanonical: unpack of the repack has every KV and every
	// tensor's bytes of the original, in the canonical layout (the
	// original's own layout is not canonical, so no file can be identical).
	RoundTripCanonical = "identical content, canonical layout"
)

// Verdicts of Verify (VerifyResult.Verdict).
const (
	// VerdictOK: the repacked file is a BITCOS repack that holds exactly
	// what the original holds (and, unless skipped or not applicable,
	// unpacks to it).
	VerdictOK = "ok"
	// VerdictDiffer: the files differ (VerifyResult.Diffs).
	VerdictDiffer = "differ"
	// VerdictNotRepack: the repacked file has no bitcos.* metadata, so
	// nothing proves a repack, whatever the comparison found.
	VerdictNotRepack = "not-a-repack"
	// VerdictSwapped: the original is the BITCOS file and the repacked one
	// is not: the arguments are the wrong way round.
	VerdictSwapped = "swapped"
	// VerdictOriginalBitcos: both files are BITCOS files; the original
	// must be the stock file a repack was made from.
	VerdictOriginalBitcos = "original-is-bitcos"
)

// OK reports whether nothing differs (whichever way round the files are:
// unpack checks its output with it).
func (v *VerifyResult) OK() bool { return len(v.Diffs) == 0 }

// judge sets the verdict of v for original a and repacked b.
func (v *VerifyResult) judge(a, b *input) {
	same := "they hold the same tensors and KVs"
	if !v.OK() {
		same = "they differ"
	}
	switch {
	case a.meta == nil && b.meta == nil:
		v.Verdict = VerdictNotRepack
		v.Reason = fmt.Sprintf("%s is not a BITCOS repack (no %s, no BITCOS tensors), so nothing proves a repack; %s", v.Repacked, bitcos.KeyVersion, same)
	case a.meta != nil && b.meta == nil:
		v.Verdict = VerdictSwapped
		v.Reason = fmt.Sprintf("the arguments are the wrong way round: %s (given as ORIGINAL) is the BITCOS file and %s (given as REPACKED) is not; run verify ORIGINAL REPACKED", v.Original, v.Repacked)
	case a.meta != nil:
		v.Verdict = VerdictOriginalBitcos
		v.Reason = fmt.Sprintf("both files are BITCOS files: ORIGINAL must be the stock file the repack was made from, and %s is a BITCOS file; %s", v.Original, same)
	case !v.OK():
		v.Verdict = VerdictDiffer
		v.Reason = fmt.Sprintf("%s and %s differ", v.Original, v.Repacked)
	default:
		v.Verdict = VerdictOK
	}
}

func (v *VerifyResult) diff(format string, a ...any) {
	if len(v.Diffs) < v.maxDiffs() {
		v.Diffs = append(v.Diffs, fmt.Sprintf(format, a...))
	} else {
		v.MoreDiffs++
	}
}

func (v *VerifyResult) maxDiffs() int { return 20 }

// Verify proves that repacked holds exactly what original holds, and that
// unpack gives the original back.
//
// Both files are validated first (bitcos.Validate): a file that is not what
// repack writes is refused with an error. Then every KV of the original, in
// order, with the same type and bytes (the repack may add bitcos.* KVs);
// every tensor of the original, in order; ternary tensors compared as
// decoded codes and scale bits, everything else byte for byte; each BITCOS
// tensor's recorded source type against the original's type, and
// bitcos.zero_density against the data. Either file may be a BITCOS file or a
// stock one, so the same check serves unpack. A float master's projections,
// against ternary tensors, are ternarized first (master.go): the check then
// proves the repack equals the ternarization.
//
// Unless opt.Fast, when repacked is a BITCOS file of a stock original, the
// round trip follows: what unpack would write is streamed into a comparison
// with the original (nothing is written).
func Verify(original, repacked string, opts ...VerifyOptions) (*VerifyResult, error) {
	var opt VerifyOptions
	if len(opts) > 0 {
		opt = opts[0]
	}
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
	v := &VerifyResult{Original: original, Repacked: repacked, Diffs: []string{}}
	defer func() { v.judge(a, b) }()
	if a.Version != b.Version {
		v.diff("GGUF version %d vs %d", a.Version, b.Version)
	}
	if a.Alignment != b.Alignment {
		v.diff("alignment %d vs %d", a.Alignment, b.Alignment)
	}
	compareKVs(v, a, b)
	ia, ib := nonCompanions(a), nonCompanions(b)
	if len(ia) != len(ib) {
		v.diff("%d tensors vs %d (companions not counted)", len(ia), len(ib))
	}
	p := tensorPass{v: v, a: a, b: b}
	for j := 0; j < min(len(ia), len(ib)); j++ {
		if err := p.tensor(j, ia[j], ib[j]); err != nil {
			return nil, err
		}
	}
	if b.meta != nil {
		checkZeroDensity(v, b, p.zeros, p.weights)
	}
	if err := checkRoundTrip(v, a, b, p.lossy, opt.Fast); err != nil {
		return nil, err
	}
	return v, nil
}

// nonCompanions lists the indices of f's tensors, companions aside.
func nonCompanions(f *input) []int {
	var idx []int
	for i, t := range f.Tensors {
		if !bitcos.IsCompanion(t.Name) {
			idx = append(idx, i)
		}
	}
	return idx
}

// tensorPass compares the tensors of an original (a) and a repack (b), one
// pair at a time, and keeps what the checks after it need.
type tensorPass struct {
	v      *VerifyResult
	a, b   *input
	ba, bb tensorBuf

	zeros, weights int64  // of b's BITCOS tensors, for bitcos.zero_density
	lossy          string // why unpack cannot give the original back
}

// tensor compares the j-th tensors of the two lists, a's tensor ia with b's
// tensor ib: same name and shape, then byte for byte (same type), as a
// quantized head, or as ternary codes and scales.
func (p *tensorPass) tensor(j, ia, ib int) error {
	v := p.v
	ta, tb := p.a.Tensors[ia], p.b.Tensors[ib]
	if ta.Name != tb.Name {
		v.diff("tensor %d is %q vs %q", j, ta.Name, tb.Name)
		return nil
	}
	if !equalDims(ta.Dims, tb.Dims) {
		v.diff("tensor %q: shape %v vs %v", ta.Name, ta.Dims, tb.Dims)
		return nil
	}
	v.TensorsChecked++
	if isTernaryType(tb.Type) {
		v.TernaryChecked++
	}
	if ta.Type == tb.Type && ta.Type != ggufx.TypeBITCOS {
		return p.compareBytes(ia, ib)
	}
	if _, ok := format.HeadTypeOf(tb.Type); ok && isFloatType(ta.Type) {
		return p.compareHead(ia, ib)
	}
	return p.compareTernary(ia, ib)
}

// compareBytes compares two tensors of the same type (not BITCOS) byte for
// byte.
func (p *tensorPass) compareBytes(ia, ib int) error {
	p.v.BytesChecked++
	same, err := sameBytes(p.a, ia, p.b, ib)
	if err != nil {
		return err
	}
	if !same {
		ta := p.a.Tensors[ia]
		p.v.diff("tensor %q (%v): data differs", ta.Name, ta.Type)
	}
	return nil
}

// compareHead checks that b's quantized head is the reference quantization
// of a's float tensor.
func (p *tensorPass) compareHead(ia, ib int) error {
	ta, tb := p.a.Tensors[ia], p.b.Tensors[ib]
	same, err := sameHead(p.a, ia, p.b, ib, runtime.GOMAXPROCS(0))
	if err != nil {
		return err
	}
	p.v.HeadsChecked++
	p.lossy = "a head was quantized (lossy by request)"
	if !same {
		p.v.diff("tensor %q: %v is not the reference quantization of the original %v", ta.Name, tb.Type, ta.Type)
	}
	return nil
}

// compareTernary compares two ternary tensors (stock, BITCOS, or a's float
// master ternarized) as decoded codes and scale bits, and a BITCOS tensor's
// recorded source type against a's type.
func (p *tensorPass) compareTernary(ia, ib int) error {
	v := p.v
	ta, tb := p.a.Tensors[ia], p.b.Tensors[ib]
	okA, okB := isTernaryType(ta.Type) || ternarizable(ta), isTernaryType(tb.Type)
	if !okA || !okB {
		v.diff("tensor %q: type %v vs %v", ta.Name, ta.Type, tb.Type)
		return nil
	}
	if err := loadAny(p.a, ia, &p.ba); err != nil {
		if r := keptReason(err); r != "" && ta.Type != ggufx.TypeBITCOS {
			// A stock tensor repack must keep (code 3, NaN scale) is
			// BITCOS or another type in the other file.
			v.diff("tensor %q: %v in the original, where it cannot be converted (%s), %v in the other file", ta.Name, ta.Type, r, tb.Type)
			return nil
		}
		return err
	}
	if err := loadAny(p.b, ib, &p.bb); err != nil {
		return err
	}
	if tb.Type == ggufx.TypeBITCOS {
		v.BitcosChecked++
		n := int64(p.bb.p.K) * int64(p.bb.p.Rows)
		p.weights += n
		p.zeros += n - nonZeros(&p.bb.p)
		if st := p.b.meta.Sources[tb.Name]; ta.Type != ggufx.TypeBITCOS && st != sourceTypeOf(ta) {
			v.diff("tensor %q: %s says its source type is %v, the original's is %v", tb.Name, bitcos.KeySourceTypes, st, sourceTypeOf(ta))
		}
	}
	if ternarizable(ta) {
		p.lossy = "the original is a float master, ternarized (lossy by request)"
	}
	if r, e, d := format.FirstDiff(&p.ba.p, &p.bb.p); d {
		v.diff("tensor %q: ternary value differs at row %d element %d (%d vs %d)", ta.Name, r, e, p.ba.p.Value(r, e), p.bb.p.Value(r, e))
	}
	if !equalScales(&p.ba.s, &p.bb.s) {
		v.diff("tensor %q: scales differ (%s)", ta.Name, scaleDiff(&p.ba.s, &p.bb.s))
	}
	return nil
}

// checkRoundTrip streams the round trip (roundTrip) when it applies: b is a
// BITCOS file of a stock original a, nothing was lossy, fast is not asked
// and the files do not already differ; otherwise v.RoundTrip says why not.
func checkRoundTrip(v *VerifyResult, a, b *input, lossy string, fast bool) error {
	switch {
	case b.meta == nil || a.meta != nil:
		v.RoundTrip = "not applicable: the repacked file is not a BITCOS file of a stock original"
	case lossy != "":
		v.RoundTrip = "not applicable: " + lossy
	case fast:
		v.RoundTrip = "skipped (fast)"
	case !v.OK():
		v.RoundTrip = "skipped: the files already differ"
	default:
		return roundTrip(v, a, b)
	}
	return nil
}

// sourceTypeOf is the source type a repack records for original tensor t:
// its own type, or TQ2_0 for a float master's ternarized projection.
func sourceTypeOf(t ggufx.TensorInfo) ggufx.GGMLType {
	if ternarizable(t) {
		return ggufx.TypeTQ2_0
	}
	return t.Type
}

// checkZeroDensity compares bitcos.zero_density with the zero density of
// the BITCOS tensors' data, computed as repack computes it (header.go).
func checkZeroDensity(v *VerifyResult, b *input, zeros, weights int64) {
	want := float32(0)
	if weights > 0 {
		want = float32(float64(zeros) / float64(weights))
	}
	if b.meta.Z != want {
		v.diff("%s is %v, the BITCOS tensors' data gives %v", bitcos.KeyZeroDensity, b.meta.Z, want)
	}
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

// compareKVs checks b's KVs equal a's, as unpack gives them back (a BITCOS
// file's without its bitcos.* keys and with its source general.file_type),
// both without split.* keys.
func compareKVs(v *VerifyResult, a, b *input) {
	strip := func(f *input) []ggufx.KV {
		kvs := f.KVs
		if f.meta != nil {
			kvs = restoredKVs(f)
		}
		var out []ggufx.KV
		for _, kv := range kvs {
			// split.* describe the shard container (llama-gguf-split
			// --merge leaves them in the merged file).
			if !ggufsplit.IsKey(kv.Key) {
				out = append(out, kv)
			}
		}
		return out
	}
	ka, kb := strip(a), strip(b)
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
