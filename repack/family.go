// Package repack rewrites ternary GGUF files as BITCOS (docs/FORMAT.md),
// proves a rewrite lossless (Verify) and reports what a rewrite would gain
// (Stats).
package repack

import (
	"fmt"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// KV keys this project writes (docs/FORMAT.md §KV).
const (
	KeyVersion     = "bitcos.version"
	KeySourceType  = "bitcos.source_type"
	KeySourceTypes = "bitcos.source_types"
	KeyZeroDensity = "bitcos.zero_density"
	KeyMasterType  = "bitcos.master_type"
	KeyI2STail     = "bitcos.i2s_tail." // + weight tensor name
	KeyPrefix      = "bitcos."

	// FormatVersion is the BITCOS-in-GGUF layout version written: 2 since
	// general.file_type names BITCOS (identity.go).
	FormatVersion = 2
	// OldestVersion is the oldest layout version read (1: the source's
	// general.file_type kept as it was).
	OldestVersion = 1
)

// Companion tensor name suffixes; they replace a trailing ".weight".
const (
	SuffixSigns  = ".bitcos_signs"
	SuffixRows   = ".bitcos_rows"
	SuffixScales = ".bitcos_scales"
)

// maxNameLen is ggml's GGML_MAX_NAME - 1: longer tensor names fail to load.
const maxNameLen = 63

// CompanionBase is the stem companion names are built on.
func CompanionBase(weight string) string { return strings.TrimSuffix(weight, ".weight") }

// shape2D folds a tensor's dims into (row length, rows).
func shape2D(dims []uint64) (k, rows int) {
	k = int(dims[0])
	rows = 1
	for _, d := range dims[1:] {
		rows *= int(d)
	}
	return
}

// family holds the four tensors of one BITCOS weight.
type family struct {
	weight, signs, rows, scales int // tensor indices
}

// findFamily locates the companions of BITCOS tensor i of f and checks their
// types and shapes against the weight's.
func findFamily(f *ggufx.File, i int) (family, error) {
	w := f.Tensors[i]
	base := CompanionBase(w.Name)
	fam := family{weight: i}
	var ok bool
	for _, c := range []struct {
		suffix string
		dst    *int
	}{{SuffixSigns, &fam.signs}, {SuffixRows, &fam.rows}, {SuffixScales, &fam.scales}} {
		if *c.dst, ok = f.Tensor(base + c.suffix); !ok {
			return fam, fmt.Errorf("%s: BITCOS tensor %q has no companion %q", f.Path, w.Name, base+c.suffix)
		}
	}
	k, rows := shape2D(w.Dims)
	s, r, sc := f.Tensors[fam.signs], f.Tensors[fam.rows], f.Tensors[fam.scales]
	bad := func(t ggufx.TensorInfo, want string) error {
		return fmt.Errorf("%s: tensor %q (companion of %q) is %v %v, want %s", f.Path, t.Name, w.Name, t.Type, t.Dims, want)
	}
	if s.Type != ggufx.TypeI8 || len(s.Dims) != 1 {
		return fam, bad(s, "I8, 1-D")
	}
	if r.Type != ggufx.TypeI32 || len(r.Dims) != 1 || r.Dims[0] != uint64(rows+1) {
		return fam, bad(r, fmt.Sprintf("I32 [%d]", rows+1))
	}
	switch sc.Type {
	case ggufx.TypeF32:
		if len(sc.Dims) != 1 || sc.Dims[0] != 1 {
			return fam, bad(sc, "F32 [1] or F16 [K/G, rows]")
		}
	case ggufx.TypeF16:
		if len(sc.Dims) != 2 || sc.Dims[1] != uint64(rows) || sc.Dims[0] == 0 || uint64(k)%sc.Dims[0] != 0 {
			return fam, bad(sc, fmt.Sprintf("F16 [K/G, %d]", rows))
		}
	default:
		return fam, bad(sc, "F32 [1] or F16 [K/G, rows]")
	}
	return fam, nil
}

// isCompanion reports whether name is a BITCOS companion tensor name.
func isCompanion(name string) bool {
	return strings.HasSuffix(name, SuffixSigns) || strings.HasSuffix(name, SuffixRows) || strings.HasSuffix(name, SuffixScales)
}
