package bitcos

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

// refuse is the FileError of f about tensor or key (or neither).
func refuse(f *ggufx.File, tensor, key, format string, a ...any) error {
	return &FileError{File: f.Path, Tensor: tensor, Key: key, Problem: fmt.Sprintf(format, a...)}
}

// Meta is what a validated BITCOS file says about itself.
type Meta struct {
	Version    uint32
	SourceType ggufx.GGMLType            // bitcos.source_type
	Sources    map[string]ggufx.GGMLType // BITCOS weight name -> source type
	Z          float32                   // bitcos.zero_density
	Master     string                    // bitcos.master_type, or ""
	// SourceFileType is bitcos.source_file_type (layout 2): the source's
	// general.file_type, which unpack restores; nil when there is none.
	SourceFileType *ggufx.KV
}

// IsBitcos reports whether f holds anything of BITCOS: a bitcos.* KV, a
// BITCOS tensor or a companion.
func IsBitcos(f *ggufx.File) bool {
	for _, kv := range f.KVs {
		if strings.HasPrefix(kv.Key, KeyPrefix) {
			return true
		}
	}
	for _, t := range f.Tensors {
		if t.Type == ggufx.TypeBITCOS || IsCompanion(t.Name) {
			return true
		}
	}
	return false
}

// Validate checks everything a BITCOS file's header says before any verb
// trusts it (docs/FORMAT.md): a known bitcos.version, every bitcos.* KV of
// the right type and consistent with the tensors (one source type per BITCOS
// tensor, in order, that a codec writes and whose scale layout the scales
// companion has; a finite zero density in [0, 1]), every BITCOS tensor's
// companions present with their types and shapes, and no companion without
// its weight. A stock file (nothing BITCOS in it) gives (nil, nil). The
// tensor data (row index, sign stream, tail, scales) is checked where it is
// read (repack's loadBitcos).
func Validate(f *ggufx.File) (*Meta, error) {
	if !IsBitcos(f) {
		return nil, nil
	}
	m := &Meta{Sources: map[string]ggufx.GGMLType{}}
	var err error
	if m.Version, err = version(f); err != nil {
		return nil, err
	}
	weights, err := families(f)
	if err != nil {
		return nil, err
	}
	if err := sourceTypes(f, weights, m); err != nil {
		return nil, err
	}
	if err := otherKeys(f, m); err != nil {
		return nil, err
	}
	if err := required(f, m, len(weights)); err != nil {
		return nil, err
	}
	return m, nil
}

// version is f's bitcos.version: present, a uint32, one this build reads.
func version(f *ggufx.File) (uint32, error) {
	kv, ok := f.KV(KeyVersion)
	if !ok {
		return 0, refuse(f, "", "", "holds BITCOS data or bitcos.* keys but no %s: not a file repack wrote, or a damaged one", KeyVersion)
	}
	if kv.Type != ggufx.ValueUint32 {
		return 0, refuse(f, "", KeyVersion, "is a %v, want uint32", kv.Type)
	}
	v, _ := kv.AsUint32()
	if v < OldestVersion || v > FormatVersion {
		return 0, refuse(f, "", "", "BITCOS layout version %d is not supported: this build reads versions %d to %d (a newer gguf-bitcos may read it)", v, OldestVersion, FormatVersion)
	}
	return v, nil
}

// families returns the BITCOS weights of f, in order, once their companions
// are found and checked, and refuses a companion without its weight.
func families(f *ggufx.File) ([]int, error) {
	var weights []int
	owned := map[string]bool{}
	for i, t := range f.Tensors {
		if t.Type != ggufx.TypeBITCOS {
			continue
		}
		if IsCompanion(t.Name) {
			return nil, refuse(f, t.Name, "", "a companion name cannot be a BITCOS weight")
		}
		fam, err := FindFamily(f, i)
		if err != nil {
			return nil, err
		}
		for _, c := range []int{fam.Signs, fam.Rows, fam.Scales} {
			owned[f.Tensors[c].Name] = true
		}
		weights = append(weights, i)
	}
	for _, t := range f.Tensors {
		if IsCompanion(t.Name) && !owned[t.Name] {
			return nil, refuse(f, t.Name, "", "a BITCOS companion without its BITCOS weight")
		}
	}
	return weights, nil
}

// sourceTypes checks bitcos.source_types, one per BITCOS tensor in tensor
// order, against the codecs and the scales companions, into m.Sources.
func sourceTypes(f *ggufx.File, weights []int, m *Meta) error {
	var types []string
	if kv, ok := f.KV(KeySourceTypes); ok {
		if types, ok = kv.StringArray(); !ok {
			return refuse(f, "", KeySourceTypes, "is a %v, want an array of strings", kv.Type)
		}
	}
	if len(types) != len(weights) {
		return refuse(f, "", KeySourceTypes, "lists %d source types for %d BITCOS tensors", len(types), len(weights))
	}
	for n, i := range weights {
		t := f.Tensors[i]
		st, ok := ggufx.ParseGGMLType(types[n])
		c := format.CodecFor(st)
		if !ok || c == nil {
			return refuse(f, t.Name, "", "%s gives it source type %q, which is not a ternary type unpack can write", KeySourceTypes, types[n])
		}
		k, _ := ggufx.Shape2D(t.Dims)
		if !c.Supports(k) {
			return refuse(f, t.Name, "", "%s gives it source type %v, which cannot hold rows of %d weights", KeySourceTypes, st, k)
		}
		fam, _ := FindFamily(f, i)
		sc := f.Tensors[fam.Scales]
		switch g := c.ScaleGroup(); {
		case g == 0 && sc.Type != ggufx.TypeF32:
			return refuse(f, t.Name, "", "source type %v has one f32 scale per tensor, but %q is %v %v", st, sc.Name, sc.Type, sc.Dims)
		case g > 0 && (sc.Type != ggufx.TypeF16 || uint64(k/g) != sc.Dims[0]):
			return refuse(f, t.Name, "", "source type %v has one fp16 scale per %d weights (%d per row), but %q is %v %v", st, g, k/g, sc.Name, sc.Type, sc.Dims)
		}
		m.Sources[t.Name] = st
	}
	return nil
}

// otherKeys checks the bitcos.* keys other than the version and the source
// types, into m; a key layout m.Version does not have is refused.
func otherKeys(f *ggufx.File, m *Meta) error {
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
				return refuse(f, "", kv.Key, "is %s, want the name of a ternary source type", kv.ValueString())
			}
			m.SourceType = st
		case kv.Key == KeyZeroDensity:
			if kv.Type != ggufx.ValueFloat32 {
				return refuse(f, "", kv.Key, "is a %v, want float32", kv.Type)
			}
			z, _ := kv.AsFloat64()
			if math.IsNaN(z) || z < 0 || z > 1 {
				return refuse(f, "", kv.Key, "is %v, want a number in [0, 1]", z)
			}
			m.Z = float32(z)
		case kv.Key == KeyMasterType:
			s, _ := kv.AsString()
			if t, ok := ggufx.ParseGGMLType(s); !ok || !IsMasterType(t) {
				return refuse(f, "", kv.Key, "is %s, want F16, BF16 or F32", kv.ValueString())
			}
			m.Master = s
		case strings.HasPrefix(kv.Key, KeyI2STail):
			name := strings.TrimPrefix(kv.Key, KeyI2STail)
			if st, ok := m.Sources[name]; !ok || st != ggufx.TypeI2_S {
				return refuse(f, "", kv.Key, "names no BITCOS tensor repacked from I2_S")
			}
			if et, n, ok := kv.ArrayLen(); !ok || et != ggufx.ValueUint8 || n != ggufx.I2STailBytes-4 {
				return refuse(f, "", kv.Key, "must be an array of %d uint8", ggufx.I2STailBytes-4)
			}
		case kv.Key == KeySourceFileType && m.Version >= 2:
			ft, ok := f.KV(KeyFileType)
			if !kv.Type.IsInteger() || len(kv.Raw) != kv.Type.Size() {
				return refuse(f, "", kv.Key, "is a %v, want an integer", kv.Type)
			}
			if v, _ := ft.AsUint64(); !ok || ft.Type != kv.Type || v != FileTypeBITCOS {
				return refuse(f, "", KeyFileType, "is %s, want %d (BITCOS) of the type of %s", ft.ValueString(), FileTypeBITCOS, KeySourceFileType)
			}
			src := kv
			m.SourceFileType = &src
		case kv.Key == KeyHeaderPad:
			if et, _, ok := kv.ArrayLen(); !ok || et != ggufx.ValueUint8 {
				return refuse(f, "", kv.Key, "must be an array of uint8")
			}
		default:
			return refuse(f, "", kv.Key, "is not a key of BITCOS layout version %d", m.Version)
		}
	}
	return nil
}

// required checks the keys a file with n BITCOS weights cannot go without,
// and that a layout 2 file's integer general.file_type says BITCOS with its
// source value beside it.
func required(f *ggufx.File, m *Meta, n int) error {
	if ft, ok := f.KV(KeyFileType); ok && m.Version >= 2 && m.SourceFileType == nil && ft.Type.IsInteger() {
		return refuse(f, "", KeyFileType, "is %s without %s to restore: a layout %d file names itself BITCOS (%d)", ft.ValueString(), KeySourceFileType, m.Version, FileTypeBITCOS)
	}
	if _, ok := f.KV(KeySourceType); !ok && n > 0 {
		return refuse(f, "", "", "has BITCOS tensors but no %s", KeySourceType)
	}
	if _, ok := f.KV(KeyZeroDensity); !ok && n > 0 {
		return refuse(f, "", "", "has BITCOS tensors but no %s", KeyZeroDensity)
	}
	return nil
}
