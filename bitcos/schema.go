// Package bitcos is the BITCOS container schema (docs/FORMAT.md): the KV keys
// and companion tensor names a BITCOS file carries, how the four tensors of
// one BITCOS weight are found (FindFamily), and what every reader checks of a
// file's header before it trusts it (Validate). It writes nothing: package
// repack writes BITCOS files; repack, verify, unpack, stats, card and the
// tests read their names from here.
package bitcos

import (
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
	// general.file_type names BITCOS (see KeyFileType).
	FormatVersion = 2
	// OldestVersion is the oldest layout version read (1: the source's
	// general.file_type kept as it was).
	OldestVersion = 1
)

// KeyHeaderPad is a uint8 array of zeros that fills header room repack
// reserved for companions of tensors it then kept (docs/FORMAT.md).
const KeyHeaderPad = "bitcos.header_pad"

// How a BITCOS file names itself (layout version 2, docs/FORMAT.md
// "Identity"): general.file_type says BITCOS (llama.cpp's
// LLAMA_FTYPE_MOSTLY_BITCOS in the patch series, 96), so that hub tools,
// llama.cpp and file names agree; the source's value moves to
// bitcos.source_file_type, from which unpack restores it byte for byte.
const (
	// KeyFileType is llama.cpp's general.file_type (a llama_ftype).
	KeyFileType = "general.file_type"
	// KeySourceFileType holds the source's general.file_type, same value
	// type, same bytes.
	KeySourceFileType = "bitcos.source_file_type"
	// FileTypeBITCOS is LLAMA_FTYPE_MOSTLY_BITCOS (patch 0006).
	FileTypeBITCOS = 96
)

// Companion tensor name suffixes; they replace a trailing ".weight".
const (
	SuffixSigns  = ".bitcos_signs"
	SuffixRows   = ".bitcos_rows"
	SuffixScales = ".bitcos_scales"
)

// MaxNameLen is ggml's GGML_MAX_NAME - 1: longer tensor names fail to load,
// so a weight whose companion names would be longer is kept.
const MaxNameLen = 63

// CompanionBase is the stem companion names are built on.
func CompanionBase(weight string) string { return strings.TrimSuffix(weight, ".weight") }

// IsCompanion reports whether name is a BITCOS companion tensor name.
func IsCompanion(name string) bool {
	return strings.HasSuffix(name, SuffixSigns) || strings.HasSuffix(name, SuffixRows) || strings.HasSuffix(name, SuffixScales)
}

// IsMasterType reports whether t is a float type bitcos.master_type may name
// (F16, BF16, F32).
func IsMasterType(t ggufx.GGMLType) bool {
	return t == ggufx.TypeF16 || t == ggufx.TypeBF16 || t == ggufx.TypeF32
}
