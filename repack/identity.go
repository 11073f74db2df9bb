package repack

import (
	"encoding/binary"
	"regexp"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// How a BITCOS file names itself (layout version 2, docs/FORMAT.md
// "Identity", the keys in package bitcos): general.file_type says BITCOS, the
// source's value moves to bitcos.source_file_type, from which unpack restores
// it byte for byte.

// fileTypeKVs rewrites kvs for a BITCOS file: an integer general.file_type
// is set to bitcos.FileTypeBITCOS in place (same value type) and its source
// value is returned as the bitcos.source_file_type KV to append; without one
// (or with a non-integer one, left alone) nothing changes.
func fileTypeKVs(kvs []ggufx.KV) ([]ggufx.KV, *ggufx.KV) {
	for i, kv := range kvs {
		if kv.Key != bitcos.KeyFileType || !kv.Type.IsInteger() || len(kv.Raw) != kv.Type.Size() {
			continue
		}
		out := append([]ggufx.KV(nil), kvs...)
		out[i] = ggufx.KV{Key: kv.Key, Type: kv.Type, Raw: intBytes(kv.Type.Size(), bitcos.FileTypeBITCOS)}
		src := ggufx.KV{Key: bitcos.KeySourceFileType, Type: kv.Type, Raw: kv.Raw}
		return out, &src
	}
	return kvs, nil
}

func intBytes(size int, v uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, v)
	return b[:size]
}

// restoredKVs are the KVs unpack writes for validated BITCOS file f: its
// KVs without the bitcos.* keys, general.file_type given back its source
// value.
func restoredKVs(f *input) []ggufx.KV {
	var out []ggufx.KV
	for _, kv := range f.KVs {
		switch {
		case strings.HasPrefix(kv.Key, bitcos.KeyPrefix):
		case kv.Key == bitcos.KeyFileType && f.meta.SourceFileType != nil:
			out = append(out, ggufx.KV{Key: kv.Key, Type: kv.Type, Raw: f.meta.SourceFileType.Raw})
		default:
			out = append(out, kv)
		}
	}
	return out
}

// quantLabel is a source type's label in a file name, as hub tools read it
// (@huggingface/gguf's parseGGUFQuantLabel): between separators.
var quantLabel = regexp.MustCompile(`(?i)([-._])(TQ2_0|TQ1_0|Q2_0|I2_S)([-._])`)

// outputName is the default name of a repack of in: the source type's label
// in the name becomes BITCOS (model-TQ2_0.gguf -> model-BITCOS.gguf), or
// -BITCOS is added (model.gguf -> model-BITCOS.gguf), so that no tool reads
// the source's type from the name.
func outputName(in string) string {
	stem := strings.TrimSuffix(in, ".gguf")
	base := len(stem) - len(lastElem(stem))
	if loc := quantLabel.FindAllStringSubmatchIndex(stem[base:]+".", -1); loc != nil {
		m := loc[len(loc)-1]
		return stem[:base+m[4]] + "BITCOS" + stem[base+m[5]:] + ".gguf"
	}
	return stem + "-BITCOS.gguf"
}

func lastElem(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
