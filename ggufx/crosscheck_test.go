package ggufx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	parser "github.com/gpustack/gguf-parser-go"
)

// TestCrossCheckGGUFParser compares our reading of a Writer-made file with
// gguf-parser-go's, an independent implementation.
//
// Only as a cross-check: the rewrite path cannot use gguf-parser-go
// (docs/DESIGN.md §3) because it trims whitespace from every string it
// reads (corrupting tokenizer vocabularies such as " " or "\n" on a round
// trip), sizes type 36 as the removed IQ4_NL_4_4 instead of I2_S (so it
// rejects BitNet's I2_S files), rejects unknown type ids such as BITCOS,
// and cannot write GGUF. The file here therefore uses stock types and
// whitespace-free strings.
func TestCrossCheckGGUFParser(t *testing.T) {
	h := Header{
		Version:   3,
		Alignment: 64,
		KVs: []KV{
			KVString("general.architecture", "llama"),
			KVString("general.name", "crosscheck"),
			KVUint32(KeyAlignment, 64),
			KVUint32("llama.block_count", 1),
			KVFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5),
			KVStringArray("tokenizer.ggml.tokens", []string{"a", "b", "<s>"}),
			KVInt32Array("tokenizer.ggml.token_type", []int32{1, 1, 3}),
			KVBool("test.flag", true),
			KVUint64("test.big", 1<<40),
		},
		Tensors: []TensorInfo{
			{Name: "token_embd.weight", Dims: []uint64{256, 3}, Type: TypeQ4_K},
			{Name: "blk.0.attn_q.weight", Dims: []uint64{256, 4}, Type: TypeTQ2_0},
			{Name: "blk.0.attn_k.weight", Dims: []uint64{256, 2}, Type: TypeTQ1_0},
			{Name: "blk.0.attn_v.weight", Dims: []uint64{64, 4}, Type: TypeQ8_0},
			{Name: "blk.0.attn_output.weight", Dims: []uint64{64, 4}, Type: TypeF16},
			{Name: "blk.0.attn_norm.weight", Dims: []uint64{7}, Type: TypeF32},
			{Name: "blk.0.ffn_up.weight", Dims: []uint64{32, 2, 2}, Type: TypeBF16},
			{Name: "output.weight", Dims: []uint64{256, 3}, Type: TypeQ6_K},
		},
	}
	b := writeFile(t, h, nil)
	path := filepath.Join(t.TempDir(), "cross.gguf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ours, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	theirs, err := parser.ParseGGUFFile(path)
	if err != nil {
		t.Fatalf("gguf-parser-go: %v", err)
	}
	if uint32(theirs.Header.Version) != ours.Version {
		t.Errorf("version: theirs %d, ours %d", theirs.Header.Version, ours.Version)
	}
	if theirs.Header.MetadataKVCount != uint64(len(ours.KVs)) || len(theirs.Header.MetadataKV) != len(ours.KVs) {
		t.Errorf("kv count: theirs %d (%d read), ours %d", theirs.Header.MetadataKVCount, len(theirs.Header.MetadataKV), len(ours.KVs))
	}
	for i, kv := range theirs.Header.MetadataKV {
		if i < len(ours.KVs) && (kv.Key != ours.KVs[i].Key || uint32(kv.ValueType) != uint32(ours.KVs[i].Type)) {
			t.Errorf("kv %d: theirs %q %v, ours %q %v", i, kv.Key, kv.ValueType, ours.KVs[i].Key, ours.KVs[i].Type)
		}
	}
	if theirs.TensorDataStartOffset != int64(ours.DataOffset) {
		t.Errorf("data offset: theirs %d, ours %d", theirs.TensorDataStartOffset, ours.DataOffset)
	}
	if len(theirs.TensorInfos) != len(ours.Tensors) {
		t.Fatalf("tensor count: theirs %d, ours %d", len(theirs.TensorInfos), len(ours.Tensors))
	}
	for i, ti := range theirs.TensorInfos {
		o := ours.Tensors[i]
		if ti.Name != o.Name || ti.Offset != o.Offset || uint32(ti.Type) != uint32(o.Type) ||
			!slices.Equal(ti.Dimensions, o.Dims) || int(ti.NDimensions) != len(o.Dims) || ti.Bytes() != o.Size {
			t.Errorf("tensor %d: theirs %s %v %v off %d bytes %d; ours %s %v %v off %d bytes %d", i,
				ti.Name, ti.Type, ti.Dimensions, ti.Offset, ti.Bytes(), o.Name, o.Type, o.Dims, o.Offset, o.Size)
		}
	}
}
