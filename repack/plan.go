package repack

import (
	"bytes"
	"fmt"
	"math"

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

	signBytes int     // sign stream length including its tail
	rowNNZ    []int32 // per-row non-zero counts (stats: dead neurons)
	isTernary bool
	master    bool // ternarized from a float master (master.go)
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

// Ternary reports whether the tensor decoded as ternary.
func (d *Decision) Ternary() bool { return d.isTernary }

// pad rounds n up to the alignment.
func pad(n, align uint64) uint64 { return (n + align - 1) / align * align }

// companionInfos returns the header entries of the three companions.
func companionInfos(weight string, k, rows int, s *format.Scales, signBytes int) []ggufx.TensorInfo {
	base := CompanionBase(weight)
	sc := ggufx.TensorInfo{Name: base + SuffixScales, Type: ggufx.TypeF32, Dims: []uint64{1}}
	if s.Group > 0 {
		sc = ggufx.TensorInfo{Name: base + SuffixScales, Type: ggufx.TypeF16, Dims: []uint64{uint64(k / s.Group), uint64(rows)}}
	}
	return []ggufx.TensorInfo{
		{Name: base + SuffixSigns, Type: ggufx.TypeI8, Dims: []uint64{uint64(signBytes)}},
		{Name: base + SuffixRows, Type: ggufx.TypeI32, Dims: []uint64{uint64(rows + 1)}},
		sc,
	}
}

// bitcosFamilyBytes is the exact file cost of a BITCOS family.
func bitcosFamilyBytes(weight string, k, rows int, s *format.Scales, signBytes int, align uint64) int64 {
	n := pad(uint64(format.BitcosBitmapBytes(k, rows)), align)
	for _, ti := range companionInfos(weight, k, rows, s, signBytes) {
		sz, _ := ggufx.TensorBytes(ti.Type, ti.Dims)
		n += pad(sz, align) + ggufx.TensorInfoSize(ti)
	}
	return int64(n)
}

// analyze decides the fate of tensor i of a stock file. When the tensor is
// converted, b holds its planes and scales afterwards.
//
// With ternarize, the projection weights of a float master are ternarized
// (master.go).
func analyze(f *input, i int, b *tensorBuf, ternarize bool) (Decision, error) {
	t := f.Tensors[i]
	d := Decision{Name: t.Name, Type: t.Type.String(), Dims: t.Dims, Source: t.Type,
		SourceBytes: int64(pad(t.Size, f.Alignment)), Layout: LayoutCopied}
	if n, err := ggufx.Elements(t.Dims); err == nil {
		d.Weights = int64(n)
	}
	if ternarize && ternarizable(t) {
		return d, analyzeMaster(f, i, b, &d)
	}
	c := CodecFor(t.Type)
	if c == nil {
		return d, nil
	}
	d.Layout = LayoutKept
	k, rows := shape2D(t.Dims)
	if k%format.BitcosBlock != 0 || !c.Supports(k) {
		d.Reason = fmt.Sprintf("row length %d is not a multiple of %d", k, format.BitcosBlock)
		return d, nil
	}
	// The 2-bit layouts are counted straight from their bytes; TQ1_0 is
	// decoded (and checked for canonical bytes).
	var nnz []int
	var err error
	isCanonical := true
	if b.raw, err = f.tensor(i, b.raw); err != nil {
		return d, err
	}
	nnz, err = format.CountRowNonZeros(c, b.raw, k, rows, nil)
	if err == format.ErrNoCounter {
		if err = loadStock(f, i, b); err == nil {
			nnz = format.RowNonZeros(&b.p, nil)
			isCanonical = canonical(c, b)
		}
	} else if err != nil {
		err = fmt.Errorf("%s: tensor %q (%v): %w", f.Path, t.Name, t.Type, err)
	}
	if err != nil {
		if isNotTernary(err) {
			d.Reason = "not ternary: " + err.Error()
			return d, nil
		}
		return d, err
	}
	d.isTernary = true
	scales := format.Scales{Group: c.ScaleGroup()}
	fillCounts(&d, nnz)
	signs := d.signBytes - format.SignTailBytes
	d.BitcosBytes = bitcosFamilyBytes(t.Name, k, rows, &scales, d.signBytes, f.Alignment)
	switch {
	case signs > math.MaxInt32-format.SignTailBytes:
		d.Reason = "sign stream too large for the int32 row index"
	case len(CompanionBase(t.Name)+SuffixScales) > maxNameLen:
		d.Reason = fmt.Sprintf("companion names would exceed ggml's %d-character limit", maxNameLen)
	case !isCanonical:
		d.Reason = "source bytes are not in canonical form; kept so that unpack stays byte-identical"
	case d.BitcosBytes >= d.SourceBytes:
		d.Reason = fmt.Sprintf("BITCOS is not smaller (%d >= %d bytes at z=%.3f)", d.BitcosBytes, d.SourceBytes, d.Z)
	default:
		d.Layout = LayoutBitcos
	}
	return d, nil
}

// canonical reports whether re-encoding the decoded tensor gives back the
// source bytes exactly (so that unpack can reproduce them). Only TQ1_0 has
// redundant byte values (243 trit patterns in 256 byte values); the 2-bit
// layouts map codes, scales and the I2_S tail one to one, so a tensor that
// holds no code 3 re-encodes to itself and needs no check.
func canonical(c format.Codec, b *tensorBuf) bool {
	out := make([]byte, len(b.raw))
	if err := c.Encode(&b.p, &b.s, out); err != nil {
		return false
	}
	return bytes.Equal(out, b.raw)
}
