package repack

import (
	"bytes"
	"fmt"
	"math"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Layout names used in reports.
const (
	LayoutBitcos = "BITCOS"
	LayoutKept   = "kept"   // a ternary-typed tensor left in its stock type
	LayoutCopied = "copied" // not a ternary tensor
	LayoutTQ2    = "tq2_0"  // a float master's tensor ternarized, kept as TQ2_0
)

// Decision is what repack does with one tensor, and why.
type Decision struct {
	Name    string         `json:"name"`
	Type    string         `json:"type"`
	Dims    []uint64       `json:"dims"`
	Layout  string         `json:"layout"`
	Reason  string         `json:"reason,omitempty"`
	Source  ggufx.GGMLType `json:"-"`
	Weights int64          `json:"weights"`
	NonZero int64          `json:"nonzero,omitempty"`
	Z       float64        `json:"zero_density,omitempty"`
	// SourceBytes is what the tensor takes in the source file (data padded
	// to the alignment). BitcosBytes is what its BITCOS family would take:
	// the four tensors' padded data plus the three companions' header
	// entries. Both are exact; the choice compares them.
	SourceBytes int64 `json:"source_bytes"`
	BitcosBytes int64 `json:"bitcos_bytes,omitempty"`

	// bitcosData is the BITCOS family's data alone (no alignment padding,
	// no header entries): what a decode step reads of it.
	bitcosData int64
	signBytes  int     // sign stream length including its tail
	rowNNZ     []int32 // per-row non-zero counts (stats: dead neurons)
	isTernary  bool
	master     bool             // ternarized from a float master (master.go)
	head       *format.HeadType // the head's type when it is quantized, else nil (head.go)
	err        error            // a head that cannot be quantized as asked
	// codec is the layout of Source, resolved once by preDecide (nil for a
	// tensor that is not ternary-typed and not a master to ternarize).
	codec format.Codec
}

// fillCounts sets the counts, z and sign stream size from per-row non-zeros.
func fillCounts(d *Decision, nnz []int) {
	d.rowNNZ = make([]int32, len(nnz))
	signs := 0
	d.NonZero = 0
	for r, n := range nnz {
		d.NonZero += int64(n)
		d.rowNNZ[r] = int32(n)
		signs += (n + 7) / 8
	}
	d.Z = 1 - float64(d.NonZero)/float64(d.Weights)
	d.signBytes = signs + format.SignTailBytes
}

// pad rounds n up to the alignment.
func pad(n, align uint64) uint64 { return (n + align - 1) / align * align }

// companionInfos returns the header entries of the three companions.
func companionInfos(weight string, k, rows int, s *format.Scales, signBytes int) []ggufx.TensorInfo {
	base := bitcos.CompanionBase(weight)
	sc := ggufx.TensorInfo{Name: base + bitcos.SuffixScales, Type: ggufx.TypeF32, Dims: []uint64{1}}
	if s.Group > 0 {
		sc = ggufx.TensorInfo{Name: base + bitcos.SuffixScales, Type: ggufx.TypeF16, Dims: []uint64{uint64(k / s.Group), uint64(rows)}}
	}
	return []ggufx.TensorInfo{
		{Name: base + bitcos.SuffixSigns, Type: ggufx.TypeI8, Dims: []uint64{uint64(signBytes)}},
		{Name: base + bitcos.SuffixRows, Type: ggufx.TypeI32, Dims: []uint64{uint64(rows + 1)}},
		sc,
	}
}

// bitcosFamilyBytes is the exact file cost of a BITCOS family.
// bitcosDataBytes is the data of the same family alone: its four tensors'
// bytes, without padding or header entries.
func bitcosDataBytes(weight string, k, rows int, s *format.Scales, signBytes int) int64 {
	n := uint64(format.BitcosBitmapBytes(k, rows))
	for _, ti := range companionInfos(weight, k, rows, s, signBytes) {
		sz, _ := ggufx.TensorBytes(ti.Type, ti.Dims)
		n += sz
	}
	return int64(n)
}

func bitcosFamilyBytes(weight string, k, rows int, s *format.Scales, signBytes int, align uint64) int64 {
	n := pad(uint64(format.BitcosBitmapBytes(k, rows)), align)
	for _, ti := range companionInfos(weight, k, rows, s, signBytes) {
		sz, _ := ggufx.TensorBytes(ti.Type, ti.Dims)
		n += pad(sz, align) + ggufx.TensorInfoSize(ti)
	}
	return int64(n)
}

// preDecide decides what can be decided from the header alone. cand is
// true when the tensor must be read to decide (a ternary type with usable
// rows, or a master projection with ternarize): repack reserves header room
// for it as if it became BITCOS.
func preDecide(f *input, i int, ternarize bool) (d Decision, cand bool) {
	t := f.Tensors[i]
	d = Decision{Name: t.Name, Type: t.Type.String(), Dims: t.Dims, Source: t.Type,
		SourceBytes: int64(pad(t.Size, f.Alignment)), Layout: LayoutCopied}
	if n, err := ggufx.Elements(t.Dims); err == nil {
		d.Weights = int64(n)
	}
	if h, ok := f.heads[t.Name]; ok {
		if d.err = headDecision(f, i, &d, h); d.err == nil {
			return d, true
		}
		return d, false
	}
	if ternarize && ternarizable(t) {
		d.master, d.Source, d.codec = true, ggufx.TypeTQ2_0, format.TQ2_0
		return d, true
	}
	c := format.CodecFor(t.Type)
	if c == nil {
		return d, false
	}
	d.codec, d.Layout = c, LayoutKept
	k, _ := ggufx.Shape2D(t.Dims)
	switch {
	case k%format.BitcosBlock != 0 || !c.Supports(k):
		d.Reason = fmt.Sprintf("row length %d is not a multiple of %d", k, format.BitcosBlock)
	case k%seriesRowMultiple != 0:
		d.Reason = fmt.Sprintf("row length %d is not a multiple of %d, which the llama.cpp series needs (BITCOS rows of whole 256-weight blocks)", k, seriesRowMultiple)
	case len(bitcos.CompanionBase(t.Name)+bitcos.SuffixScales) > bitcos.MaxNameLen:
		d.Reason = fmt.Sprintf("companion names would exceed ggml's %d-character limit", bitcos.MaxNameLen)
	default:
		return d, true
	}
	return d, false
}

// seriesRowMultiple: the llama.cpp patch series (patches/) loads BITCOS
// weights whose rows are whole 256-weight blocks, for every scale grouping
// (ggml_bitcos_parts_fit). The format itself takes rows of 128-weight
// blocks, but only Q2_0 sources (64 weights per block) can have rows of
// other lengths, and a file the series refuses is no use: such tensors stay
// in their source type, which llama.cpp runs.
const seriesRowMultiple = 256

// decide completes a candidate's decision from its per-row non-zero counts.
// canonicalBytes is false when the source's bytes do not re-encode to
// themselves (reencodes).
func decide(f *input, d *Decision, nnz []int, canonicalBytes bool) {
	k, rows := ggufx.Shape2D(d.Dims)
	d.isTernary = true
	fillCounts(d, nnz)
	scales := format.Scales{Group: d.codec.ScaleGroup()}
	d.BitcosBytes = bitcosFamilyBytes(d.Name, k, rows, &scales, d.signBytes, f.Alignment)
	d.bitcosData = bitcosDataBytes(d.Name, k, rows, &scales, d.signBytes)
	fallback := d.SourceBytes
	if d.master {
		d.Layout, d.Reason = LayoutTQ2, "ternarized from "+d.Type
		fallback = int64(pad(uint64(format.TQ2_0.TensorBytes(k, rows)), f.Alignment))
	}
	switch {
	case d.signBytes-format.SignTailBytes > math.MaxInt32-format.SignTailBytes:
		d.Reason = "sign stream too large for the int32 row index"
	case !canonicalBytes:
		d.Reason = "source bytes are not in canonical form; kept so that unpack stays byte-identical"
	case d.BitcosBytes >= fallback:
		if !d.master {
			d.Reason = fmt.Sprintf("BITCOS is not smaller: %d >= %d bytes in the file, alignment padding and the companions' header entries counted, at z=%.3f", d.BitcosBytes, fallback, d.Z)
		}
	default:
		d.Layout, d.Reason = LayoutBitcos, ""
	}
}

// keep marks a candidate kept in its source type for reason (keptReason).
func keep(d *Decision, reason string) {
	d.Layout, d.Reason = LayoutKept, reason
}

// analyzeCandidate completes the decision d of candidate i (preDecide) as
// encoding it would, without encoding it (stats, and repack's planning pass
// for sharded output): a layout with a direct counter
// (format.CountRowNonZeros) is counted straight from its bytes unless it is
// redundant (it must be decoded to compare a re-encoding); the others, and
// masters, are decoded.
func analyzeCandidate(f *input, i int, d *Decision, b *tensorBuf) error {
	t := f.Tensors[i]
	k, rows := ggufx.Shape2D(t.Dims)
	if d.master {
		if err := loadMaster(f, i, b); err != nil {
			return err
		}
		decide(f, d, format.RowNonZeros(&b.p, nil), true)
		return nil
	}
	var nnz []int
	err := format.ErrNoCounter
	if !d.codec.Redundant() {
		if b.raw, err = f.tensor(i, b.raw); err != nil {
			return err
		}
		nnz, err = format.CountRowNonZeros(d.codec, b.raw, k, rows, nil)
	}
	isCanonical := true
	if err == format.ErrNoCounter {
		if err = loadStock(f, i, b); err == nil {
			nnz = format.RowNonZeros(&b.p, nil)
			isCanonical = reencodes(d, b)
		}
	} else if err != nil {
		err = fmt.Errorf("%s: tensor %q (%v): %w", f.Path, t.Name, t.Type, err)
	}
	if err != nil {
		if r := keptReason(err); r != "" {
			keep(d, r)
			return nil
		}
		return err
	}
	decide(f, d, nnz, isCanonical)
	return nil
}

// reencodes reports whether candidate d's source bytes (b.raw, decoded into
// b.p and b.s) are what its codec writes for those codes and scales, so that
// unpack can give them back byte for byte. This is the one place the rule is
// decided, for repack and stats alike: only a redundant layout
// (format.Codec.Redundant) can fail it, and a master's source is floats,
// which unpack does not restore.
func reencodes(d *Decision, b *tensorBuf) bool {
	if d.master || !d.codec.Redundant() {
		return true
	}
	out := make([]byte, len(b.raw))
	if err := d.codec.Encode(&b.p, &b.s, out); err != nil {
		return false
	}
	return bytes.Equal(out, b.raw)
}
