package repack

import (
	"fmt"
	"math"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// FileError is how every verb refuses a file: the file, the tensor or KV
// concerned (if any), and what is wrong with it.
type FileError struct {
	File    string
	Tensor  string // tensor name, or ""
	Key     string // KV key, or ""
	Problem string
}

func (e *FileError) Error() string {
	switch {
	case e.Tensor != "":
		return fmt.Sprintf("%s: tensor %q: %s", e.File, e.Tensor, e.Problem)
	case e.Key != "":
		return fmt.Sprintf("%s: KV %q: %s", e.File, e.Key, e.Problem)
	}
	return e.File + ": " + e.Problem
}

// bitcosMeta is what a validated BITCOS file says about itself.
type bitcosMeta struct {
	version    uint32
	sourceType ggufx.GGMLType            // bitcos.source_type
	sources    map[string]ggufx.GGMLType // BITCOS weight name -> source type
	z          float32                   // bitcos.zero_density
	master     string                    // bitcos.master_type, or ""
	// sourceFileType is bitcos.source_file_type (layout 2): the source's
	// general.file_type, which unpack restores; nil when there is none.
	sourceFileType *ggufx.KV
}

// isBitcosFile reports whether f holds anything of BITCOS: a bitcos.* KV,
// a BITCOS tensor or a companion.
func isBitcosFile(f *ggufx.File) bool {
	for _, kv := range f.KVs {
		if strings.HasPrefix(kv.Key, KeyPrefix) {
			return true
		}
	}
	for _, t := range f.Tensors {
		if t.Type == ggufx.TypeBITCOS || isCompanion(t.Name) {
			return true
		}
	}
	return false
}

// validateBitcos checks everything a BITCOS file's header says before any
// verb trusts it (docs/FORMAT.md): a known bitcos.version, every bitcos.*
// KV of the right type and consistent with the tensors (one source type per
// BITCOS tensor, in order, that a codec writes and whose scale layout the
// scales companion has; a finite zero density in [0, 1]), every BITCOS
// tensor's companions present with their types and shapes, and no companion
// without its weight. A stock file (nothing BITCOS in it) gives (nil, nil).
// The tensor data (row index, sign stream, tail, scales) is checked where it
// is read (loadBitcos).
func validateBitcos(f *ggufx.File) (*bitcosMeta, error) {
	if !isBitcosFile(f) {
		return nil, nil
	}
	fail := func(tensor, key, format string, a ...any) error {
		return &FileError{File: f.Path, Tensor: tensor, Key: key, Problem: fmt.Sprintf(format, a...)}
	}
	kv, ok := f.KV(KeyVersion)
	if !ok {
		return nil, fail("", "", "holds BITCOS data or bitcos.* keys but no %s: not a file repack wrote, or a damaged one", KeyVersion)
	}
	m := &bitcosMeta{sources: map[string]ggufx.GGMLType{}}
	if kv.Type != ggufx.ValueUint32 {
		return nil, fail("", KeyVersion, "is a %v, want uint32", kv.Type)
	}
	m.version, _ = kv.AsUint32()
	if m.version < OldestVersion || m.version > FormatVersion {
		return nil, fail("", "", "BITCOS layout version %d is not supported: this build reads versions %d to %d (a newer gguf-bitcos may read it)", m.version, OldestVersion, FormatVersion)
	}

	// The BITCOS weights, in order, and their companions.
	var weights []int
	owned := map[string]bool{}
	for i, t := range f.Tensors {
		if t.Type != ggufx.TypeBITCOS {
			continue
		}
		if isCompanion(t.Name) {
			return nil, fail(t.Name, "", "a companion name cannot be a BITCOS weight")
		}
		fam, err := findFamily(f, i)
		if err != nil {
			return nil, err
		}
		for _, c := range []int{fam.signs, fam.rows, fam.scales} {
			owned[f.Tensors[c].Name] = true
		}
		weights = append(weights, i)
	}
	for _, t := range f.Tensors {
		if isCompanion(t.Name) && !owned[t.Name] {
			return nil, fail(t.Name, "", "a BITCOS companion without its BITCOS weight")
		}
	}

	// bitcos.source_types: one per BITCOS tensor, in tensor order.
	var types []string
	if kv, ok := f.KV(KeySourceTypes); ok {
		if types, ok = kv.StringArray(); !ok {
			return nil, fail("", KeySourceTypes, "is a %v, want an array of strings", kv.Type)
		}
	}
	if len(types) != len(weights) {
		return nil, fail("", KeySourceTypes, "lists %d source types for %d BITCOS tensors", len(types), len(weights))
	}
	for n, i := range weights {
		t := f.Tensors[i]
		st, ok := ggufx.ParseGGMLType(types[n])
		c := format.CodecFor(st)
		if !ok || c == nil {
			return nil, fail(t.Name, "", "%s gives it source type %q, which is not a ternary type unpack can write", KeySourceTypes, types[n])
		}
		k, _ := shape2D(t.Dims)
		if !c.Supports(k) {
			return nil, fail(t.Name, "", "%s gives it source type %v, which cannot hold rows of %d weights", KeySourceTypes, st, k)
		}
		fam, _ := findFamily(f, i)
		sc := f.Tensors[fam.scales]
		switch g := c.ScaleGroup(); {
		case g == 0 && sc.Type != ggufx.TypeF32:
			return nil, fail(t.Name, "", "source type %v has one f32 scale per tensor, but %q is %v %v", st, sc.Name, sc.Type, sc.Dims)
		case g > 0 && (sc.Type != ggufx.TypeF16 || uint64(k/g) != sc.Dims[0]):
			return nil, fail(t.Name, "", "source type %v has one fp16 scale per %d weights (%d per row), but %q is %v %v", st, g, k/g, sc.Name, sc.Type, sc.Dims)
		}
		m.sources[t.Name] = st
	}

	// The other bitcos.* keys.
	for _, kv := range f.KVs {
		if !strings.HasPrefix(kv.Key, KeyPrefix) {
			continue
		}
		switch {
		case kv.Key == KeyVersion || kv.Key == KeySourceTypes:
		case kv.Key == KeySourceType:
			s, ok := kv.AsString()
			st, known := ggufx.ParseGGMLType(s)
			if !ok || !known || format.CodecFor(st) == nil {
				return nil, fail("", kv.Key, "is %s, want the name of a ternary source type", kv.ValueString())
			}
			m.sourceType = st
		case kv.Key == KeyZeroDensity:
			if kv.Type != ggufx.ValueFloat32 {
				return nil, fail("", kv.Key, "is a %v, want float32", kv.Type)
			}
			z, _ := kv.AsFloat64()
			if math.IsNaN(z) || z < 0 || z > 1 {
				return nil, fail("", kv.Key, "is %v, want a number in [0, 1]", z)
			}
			m.z = float32(z)
		case kv.Key == KeyMasterType:
			s, _ := kv.AsString()
			if t, ok := ggufx.ParseGGMLType(s); !ok || !isFloatType(t) {
				return nil, fail("", kv.Key, "is %s, want F16, BF16 or F32", kv.ValueString())
			}
			m.master = s
		case strings.HasPrefix(kv.Key, KeyI2STail):
			name := strings.TrimPrefix(kv.Key, KeyI2STail)
			if st, ok := m.sources[name]; !ok || st != ggufx.TypeI2_S {
				return nil, fail("", kv.Key, "names no BITCOS tensor repacked from I2_S")
			}
			if et, n, ok := kv.ArrayLen(); !ok || et != ggufx.ValueUint8 || n != ggufx.I2STailBytes-4 {
				return nil, fail("", kv.Key, "must be an array of %d uint8", ggufx.I2STailBytes-4)
			}
		case kv.Key == KeySourceFileType && m.version >= 2:
			ft, ok := f.KV(KeyFileType)
			if !kv.Type.IsInteger() || len(kv.Raw) != kv.Type.Size() {
				return nil, fail("", kv.Key, "is a %v, want an integer", kv.Type)
			}
			if v, _ := ft.AsUint64(); !ok || ft.Type != kv.Type || v != FileTypeBITCOS {
				return nil, fail("", KeyFileType, "is %s, want %d (BITCOS) of the type of %s", ft.ValueString(), FileTypeBITCOS, KeySourceFileType)
			}
			src := kv
			m.sourceFileType = &src
		case kv.Key == KeyHeaderPad:
			if et, _, ok := kv.ArrayLen(); !ok || et != ggufx.ValueUint8 {
				return nil, fail("", kv.Key, "must be an array of uint8")
			}
		default:
			return nil, fail("", kv.Key, "is not a key of BITCOS layout version %d", m.version)
		}
	}
	// Layout 2: an integer general.file_type says BITCOS and has its source
	// value beside it.
	if ft, ok := f.KV(KeyFileType); ok && m.version >= 2 && m.sourceFileType == nil && ft.Type.IsInteger() {
		return nil, fail("", KeyFileType, "is %s without %s to restore: a layout %d file names itself BITCOS (%d)", ft.ValueString(), KeySourceFileType, m.version, FileTypeBITCOS)
	}
	if _, ok := f.KV(KeySourceType); !ok && len(weights) > 0 {
		return nil, fail("", "", "has BITCOS tensors but no %s", KeySourceType)
	}
	if _, ok := f.KV(KeyZeroDensity); !ok && len(weights) > 0 {
		return nil, fail("", "", "has BITCOS tensors but no %s", KeyZeroDensity)
	}
	return m, nil
}
