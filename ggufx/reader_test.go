package ggufx

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// everyValueHeader has a KV of every value type, arrays of each, nested
// arrays, odd strings, and tensors of many types including I2_S and BITCOS.
func everyValueHeader(t testing.TB) Header {
	odd := []string{"", " ", "\t", "\n  ", "\xff\xfe", "a\x00b", "▁word", " lead", "trail "}
	nestedNums, err := KVArrayOf("", ValueArray, []KV{KVUint32Array("", []uint32{1, 2}), KVUint32Array("", nil)})
	if err != nil {
		t.Fatal(err)
	}
	nested, err := KVArrayOf("test.nested", ValueArray, []KV{
		nestedNums, // array of arrays inside an array of arrays
	})
	if err != nil {
		t.Fatal(err)
	}
	nestedStr, err := KVArrayOf("test.nested_strings", ValueArray, []KV{
		KVStringArray("", odd), KVStringArray("", nil), KVStringArray("", []string{" "}),
	})
	if err != nil {
		t.Fatal(err)
	}
	mixed := []KV{KVBool("", true), {Type: ValueBool, Raw: []byte{7}}} // a non-canonical bool byte survives
	boolArr, err := KVArrayOf("test.bools", ValueBool, mixed)
	if err != nil {
		t.Fatal(err)
	}
	i8s, _ := KVArrayOf("test.i8s", ValueInt8, []KV{KVInt8("", -1), KVInt8("", 5)})
	u16s, _ := KVArrayOf("test.u16s", ValueUint16, []KV{KVUint16("", 65535)})
	i16s, _ := KVArrayOf("test.i16s", ValueInt16, []KV{KVInt16("", -300)})
	i64s, _ := KVArrayOf("test.i64s", ValueInt64, []KV{KVInt64("", math.MinInt64)})
	f64s, _ := KVArrayOf("test.f64s", ValueFloat64, []KV{KVFloat64("", math.Inf(-1)), KVFloat64("", math.NaN())})
	return Header{
		Version:   2,
		Alignment: 64,
		KVs: []KV{
			KVString("general.architecture", "bitnet-b1.58"),
			KVUint32(KeyAlignment, 64),
			KVUint8("test.u8", 255),
			KVInt8("test.i8", -128),
			KVUint16("test.u16", 1),
			KVInt16("test.i16", -1),
			KVUint32("test.u32", math.MaxUint32),
			KVInt32("test.i32", math.MinInt32),
			KVFloat32("test.f32", float32(math.NaN())),
			KVBool("test.bool", false),
			KVString("test.empty", ""),
			KVString("test.space", " "),
			KVString("test.tab", "\t"),
			KVString("test.newline", "\n  "),
			KVString("test.binary", "\x00\xff\x80 "),
			KVUint64("test.u64", math.MaxUint64),
			KVInt64("test.i64", -1),
			KVFloat64("test.f64", math.Copysign(0, -1)), // -0.0 is +0 in Go
			KVStringArray("tokenizer.ggml.tokens", odd),
			KVFloat32Array("tokenizer.ggml.scores", []float32{0, -1.5, float32(math.Inf(1))}),
			KVInt32Array("tokenizer.ggml.token_type", []int32{1, 2, 3, 6}),
			KVUint8Array("test.u8s", []byte{0, 1, 255}),
			KVUint32Array("test.u32s", nil),
			KVUint64Array("test.u64s", []uint64{1 << 63}),
			i8s, u16s, i16s, i64s, f64s, boolArr, nested, nestedStr,
		},
		Tensors: []TensorInfo{
			{Name: "scalar", Dims: nil, Type: TypeF32},
			{Name: "token_embd.weight", Dims: []uint64{64, 3}, Type: TypeF16},
			{Name: "blk.0.attn_q.weight", Dims: []uint64{256, 3}, Type: TypeTQ2_0},
			{Name: "blk.0.attn_k.weight", Dims: []uint64{256, 2}, Type: TypeTQ1_0},
			{Name: "blk.0.attn_v.weight", Dims: []uint64{128, 3}, Type: TypeQ2_0},
			{Name: "blk.0.attn_output.weight", Dims: []uint64{128, 3}, Type: TypeI2_S},
			{Name: "blk.0.ffn_up.weight", Dims: []uint64{256, 3, 1, 1}, Type: TypeBITCOS},
			{Name: "blk.0.ffn_up.bitcos_signs", Dims: []uint64{77}, Type: TypeI8},
			{Name: "blk.0.ffn_up.bitcos_rows", Dims: []uint64{4}, Type: TypeI32},
			{Name: "blk.0.ffn_up.bitcos_scales", Dims: []uint64{1}, Type: TypeF32},
			{Name: "blk.0.ffn_gate_exps.weight", Dims: []uint64{32, 2, 3}, Type: TypeQ8_0},
			{Name: "output.weight", Dims: []uint64{256, 1}, Type: TypeQ6_K},
			{Name: "bf16", Dims: []uint64{3}, Type: TypeBF16},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	h := everyValueHeader(t)
	b := writeFile(t, h, nil)
	f, err := parseBytes(b, "every.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 2 || f.Alignment != 64 || f.FileSize != int64(len(b)) || f.DataOffset%64 != 0 {
		t.Errorf("version %d alignment %d size %d data offset %d", f.Version, f.Alignment, f.FileSize, f.DataOffset)
	}
	if !reflect.DeepEqual(f.KVs, h.KVs) {
		for i := range h.KVs {
			if i >= len(f.KVs) || !reflect.DeepEqual(f.KVs[i], h.KVs[i]) {
				t.Fatalf("kv %d: got %+v, want %+v", i, f.KVs[i], h.KVs[i])
			}
		}
		t.Fatal("KVs differ")
	}
	var w bytes.Buffer
	wr, _ := NewWriter(&w, h)
	for i, ti := range wr.Tensors() {
		got := f.Tensors[i]
		if got.Name != ti.Name || !slices.Equal(got.Dims, ti.Dims) || got.Type != ti.Type ||
			got.Offset != ti.Offset || got.Size != ti.Size {
			t.Errorf("tensor %d: got %+v, want %+v", i, got, ti)
		}
		data, err := f.ReadTensor(i, nil)
		if err != nil || !bytes.Equal(data, pseudoRandom(uint64(i), int(ti.Size))) {
			t.Errorf("tensor %d data differs (%v)", i, err)
		}
		sec, err := io.ReadAll(f.Section(i))
		if err != nil || !bytes.Equal(sec, data) {
			t.Errorf("tensor %d Section differs", i)
		}
	}
	if len(f.Tensors[0].Dims) != 0 || len(f.Tensors[6].Dims) != 4 {
		t.Error("n_dims not preserved")
	}
	// Negative zero keeps its sign bit, in the bytes and in the value.
	if kv, _ := f.KV("test.f64"); !bytes.Equal(kv.Raw, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}) {
		t.Errorf("test.f64 bytes % x, want negative zero", kv.Raw)
	} else if v, ok := kv.AsFloat64(); !ok || v != 0 || !math.Signbit(v) {
		t.Errorf("test.f64 = %v (ok %v), want -0", v, ok)
	}
	// Strings come back byte for byte, whitespace included.
	for key, want := range map[string]string{"test.space": " ", "test.tab": "\t", "test.newline": "\n  ", "test.empty": "", "test.binary": "\x00\xff\x80 "} {
		kv, ok := f.KV(key)
		s, ok2 := kv.AsString()
		if !ok || !ok2 || s != want {
			t.Errorf("%s = %q", key, s)
		}
	}
	toks, _ := f.KVs[18].StringArray()
	if len(toks) != 9 || toks[1] != " " || toks[2] != "\t" || toks[3] != "\n  " || toks[4] != "\xff\xfe" {
		t.Errorf("tokens %q", toks)
	}
	if err := f.Canonical(); err != nil {
		t.Errorf("Canonical: %v", err)
	}
	if again := rewrite(t, f); !bytes.Equal(again, b) {
		t.Error("rewrite differs from the original")
	}
	// Lookups.
	if i, ok := f.Tensor("blk.0.attn_output.weight"); !ok || i != 5 || f.Tensors[i].Type != TypeI2_S || f.Tensors[i].Size != 128*3/4+32 {
		t.Errorf("Tensor lookup: %d %v", i, ok)
	}
	if _, ok := f.Tensor("nope"); ok {
		t.Error("found a missing tensor")
	}
	if kv, ok := f.KV("test.u32"); !ok || kv.Type != ValueUint32 {
		t.Error("KV lookup")
	}
	if _, ok := f.KV("nope"); ok {
		t.Error("found a missing key")
	}
	if _, err := f.ReadTensor(len(f.Tensors), nil); err == nil {
		t.Error("ReadTensor out of range")
	}
	buf := make([]byte, 0, 4096)
	got, _ := f.ReadTensor(1, buf)
	if &got[0] != &buf[:1][0] {
		t.Error("ReadTensor did not reuse buf")
	}
}

func TestOpen(t *testing.T) {
	b := writeFile(t, smallHeader(), nil)
	path := filepath.Join(t.TempDir(), "small.gguf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != path || f.FileSize != int64(len(b)) || len(f.Tensors) != 3 {
		t.Errorf("path %q size %d tensors %d", f.Path, f.FileSize, len(f.Tensors))
	}
	d, err := f.ReadTensor(2, nil)
	if err != nil || !bytes.Equal(d, pseudoRandom(2, 20)) {
		t.Error("ReadTensor", err)
	}
	if err := f.Canonical(); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil {
		t.Error("second Close:", err)
	}
	if err := os.WriteFile(path, b[:30], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(path)
	mustContain(t, err, path+": ")
	if _, err := Open(filepath.Join(t.TempDir(), "missing.gguf")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestTruncated parses every prefix of a small valid file.
func TestTruncated(t *testing.T) {
	b := writeFile(t, smallHeader(), nil)
	f, err := parseBytes(b, "full.gguf")
	if err != nil {
		t.Fatal(err)
	}
	last := f.Tensors[len(f.Tensors)-1]
	dataEnd := int(f.DataOffset + last.Offset + last.Size)
	for n := 0; n < len(b); n++ {
		g, err := parseBytes(b[:n], "cut.gguf")
		if n < dataEnd {
			if err == nil {
				t.Fatalf("prefix %d of %d parsed", n, len(b))
			}
			if !strings.HasPrefix(err.Error(), "cut.gguf: ") {
				t.Fatalf("prefix %d: error %q lacks the file name", n, err)
			}
			continue
		}
		// Only the final padding is missing: readable, but not canonical.
		if err != nil {
			t.Fatalf("prefix %d: %v", n, err)
		}
		mustContain(t, g.Canonical(), "not canonical", "short of the end of the padding after tensor 2")
	}
}

// TestCorrupt checks hostile and broken headers.
func TestCorrupt(t *testing.T) {
	f32 := uint32(TypeF32)
	okTensor := rawTensor{name: "w", dims: []uint64{8}, typ: f32}
	align := func(v uint32) rawKV { return rawKV{KeyAlignment, uint32(ValueUint32), le32(v)} }
	tests := []struct {
		name  string
		file  rawFile
		bytes []byte // used instead of file if set
		words []string
	}{
		{"empty", rawFile{}, []byte{}, []string{"too short for the GGUF magic"}},
		{"wrong magic", rawFile{magic: "GGML", version: 3}, nil, []string{"not a GGUF file", `"GGML"`}},
		{"version 0", rawFile{version: 0}, nil, []string{"version 0"}},
		{"version 1", rawFile{version: 1}, nil, []string{"version 1 is not supported"}},
		{"version 4", rawFile{version: 4}, nil, []string{"version 4 is not supported"}},
		{"byte-swapped version", rawFile{version: 0x03000000}, nil, []string{"big-endian", "byte-swapped", "version 3"}},
		{"byte-swapped version 2", rawFile{version: 0x02000000}, nil, []string{"big-endian"}},
		{"huge kv count", rawFile{version: 3, nKV: u64p(1 << 62)}, nil, []string{"kv count 4611686018427387904 cannot fit"}},
		{"negative kv count", rawFile{version: 3, nKV: u64p(1 << 63)}, nil, []string{"kv count", "negative"}},
		{"huge tensor count", rawFile{version: 3, nTensors: u64p(1 << 40)}, nil, []string{"tensor count 1099511627776 cannot fit"}},
		{"kv count too big", rawFile{version: 3, nKV: u64p(2), kvs: []rawKV{align(32)}}, nil, []string{"kv 1", "truncated"}},
		{"huge key length", rawFile{}, append(rawFile{version: 3, nKV: u64p(1)}.bytes()[:24], append(le64(1<<50), make([]byte, 40)...)...), []string{"kv 0", "key length 1125899906842624"}},
		{"empty key", rawFile{version: 3, kvs: []rawKV{{"", uint32(ValueUint8), []byte{1}}}}, nil, []string{"kv 0", "empty key"}},
		{"huge string", rawFile{version: 3, kvs: []rawKV{{"general.name", uint32(ValueString), le64(1 << 60)}}}, nil, []string{`kv 0 "general.name"`, "string length 1152921504606846976"}},
		{"string over gguf limit", rawFile{version: 3, kvs: []rawKV{{"general.name", uint32(ValueString), le64(1<<30 + 1)}}}, nil, []string{`"general.name"`, "limit"}},
		{"huge array", rawFile{version: 3, kvs: []rawKV{{"tokenizer.ggml.tokens", uint32(ValueArray), rawArray(ValueString, 1<<29)}}}, nil, []string{`"tokenizer.ggml.tokens"`, "array of 536870912 string elements cannot fit"}},
		{"array over gguf limit", rawFile{version: 3, kvs: []rawKV{{"a", uint32(ValueArray), rawArray(ValueUint8, 1<<31)}}}, nil, []string{`"a"`, "limit"}},
		{"huge string in array", rawFile{version: 3, kvs: []rawKV{{"t", uint32(ValueArray), rawArray(ValueString, 2, rawStr("x"), le64(1<<40))}}}, nil, []string{`kv 0 "t"`, "array element 1", "string length 1099511627776"}},
		{"huge nested array", rawFile{version: 3, kvs: []rawKV{{"n", uint32(ValueArray), rawArray(ValueArray, 1, rawArray(ValueUint64, 1<<28))}}}, nil, []string{`"n"`, "array element 0", "cannot fit"}},
		{"invalid value type", rawFile{version: 3, kvs: []rawKV{{"x", 13, []byte{0}}}}, nil, []string{`kv 0 "x"`, "invalid value type 13"}},
		{"invalid element type", rawFile{version: 3, kvs: []rawKV{{"x", uint32(ValueArray), rawArray(200, 0)}}}, nil, []string{`kv 0 "x"`, "invalid element type 200"}},
		{"duplicate key", rawFile{version: 3, kvs: []rawKV{{"a", 0, []byte{1}}, {"b", 0, []byte{1}}, {"a", 0, []byte{2}}}}, nil, []string{`kv 2 "a"`, "duplicate key (also kv 0)"}},
		{"alignment 0", rawFile{version: 3, kvs: []rawKV{align(0)}}, nil, []string{KeyAlignment, "alignment 0 is not a non-zero power of two"}},
		{"alignment 3", rawFile{version: 3, kvs: []rawKV{align(3)}}, nil, []string{KeyAlignment, "alignment 3"}},
		{"alignment uint64", rawFile{version: 3, kvs: []rawKV{{KeyAlignment, uint32(ValueUint64), le64(32)}}}, nil, []string{KeyAlignment, "must be of type uint32, is uint64"}},
		{"n_dims 5", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{1, 1, 1, 1, 1}, typ: f32}}}, nil, []string{`tensor 0 "w"`, "n_dims 5"}},
		{"huge n_dims", rawFile{version: 3, tensors: []rawTensor{{name: "w", nDims: u32p(1 << 31), typ: f32}}}, nil, []string{`tensor 0 "w"`, "n_dims 2147483648"}},
		{"zero dim", rawFile{version: 3, tensors: []rawTensor{okTensor, {name: "blk.0.z", dims: []uint64{4, 0}, typ: f32, offset: 32}}, dataBytes: 64}, nil, []string{`tensor 1 "blk.0.z"`, "dimension 1 is 0"}},
		{"negative dim", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{1 << 63}, typ: f32}}}, nil, []string{`tensor 0 "w"`, "larger than int64"}},
		{"elements overflow", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{1 << 32, 1 << 32}, typ: f32}}}, nil, []string{`tensor 0 "w"`, "2^63-1"}},
		{"unknown type 37", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{32}, typ: 37}}}, nil, []string{`tensor 0 "w"`, "unknown ggml type id 37"}},
		{"unknown type 200", rawFile{version: 3, tensors: []rawTensor{okTensor, {name: "x", dims: []uint64{32}, typ: 200}}}, nil, []string{`tensor 1 "x"`, "unknown ggml type id 200"}},
		{"removed type 4", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{32}, typ: 4}}}, nil, []string{"unknown ggml type id 4"}},
		{"block size", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{100, 2}, typ: uint32(TypeTQ2_0)}}}, nil, []string{`tensor 0 "w"`, "ne0 = 100", "block size 256"}},
		{"name too long", rawFile{version: 3, tensors: []rawTensor{{name: strings.Repeat("n", 64), dims: []uint64{1}, typ: f32}}}, nil, []string{"tensor 0", "64 bytes long"}},
		{"NUL in tensor name", rawFile{version: 3, tensors: []rawTensor{{name: "a\x00b", dims: []uint64{1}, typ: f32}}, dataBytes: 32}, nil, []string{"tensor 0", "NUL byte"}},
		{"huge name length", rawFile{}, append(rawFile{version: 3, nTensors: u64p(1)}.bytes()[:24], append(le64(1<<62), make([]byte, 40)...)...), []string{"tensor 0", "tensor name length 4611686018427387904"}},
		{"duplicate tensor", rawFile{version: 3, tensors: []rawTensor{okTensor, {name: "w", dims: []uint64{8}, typ: f32, offset: 32}}, dataBytes: 64}, nil, []string{`tensor 1 "w"`, "duplicate tensor name (also tensor 0)"}},
		{"misaligned offset", rawFile{version: 3, tensors: []rawTensor{okTensor, {name: "blk.0.attn_q.weight", dims: []uint64{8}, typ: f32, offset: 1234}}, dataBytes: 2048}, nil, []string{`tensor 1 "blk.0.attn_q.weight"`, "offset 1234 is not aligned to 32"}},
		{"misaligned with alignment 64", rawFile{version: 3, kvs: []rawKV{align(64)}, tensors: []rawTensor{{name: "w", dims: []uint64{8}, typ: f32, offset: 32}}, align: 64, dataBytes: 128}, nil, []string{`tensor 0 "w"`, "not aligned to 64"}},
		{"overlap", rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{16}, typ: f32}, {name: "b", dims: []uint64{8}, typ: f32, offset: 32}}, dataBytes: 128}, nil, []string{`tensor 1 "b"`, `overlaps tensor 0 "a"`}},
		{"same offset", rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{8}, typ: f32, offset: 64}, {name: "b", dims: []uint64{8}, typ: f32, offset: 64}}, dataBytes: 128}, nil, []string{"overlaps"}},
		{"beyond EOF", rawFile{version: 3, tensors: []rawTensor{okTensor, {name: "out", dims: []uint64{64}, typ: f32, offset: 32}}, dataBytes: 100}, nil, []string{`tensor 1 "out"`, "beyond the end of the file"}},
		{"offset beyond EOF", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{8}, typ: f32, offset: 1 << 63}}, dataBytes: 64}, nil, []string{`tensor 0 "w"`, "beyond the end of the file"}},
		{"huge tensor", rawFile{version: 3, tensors: []rawTensor{{name: "w", dims: []uint64{1 << 40, 1 << 20}, typ: f32}}, dataBytes: 64}, nil, []string{`tensor 0 "w"`, "beyond the end"}},
		{"no header padding", rawFile{}, rawFile{version: 3, tensors: []rawTensor{okTensor}}.bytes()[:24+8+1+4+8+4+8], []string{"data section would start at offset 64, beyond the end of the file (size 57)"}},
		{"nested too deep", rawFile{version: 3, kvs: []rawKV{{"d", uint32(ValueArray), deepArray(MaxArrayDepth + 1)}}}, nil, []string{`kv 0 "d"`, "nested deeper than 8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.bytes
			if b == nil {
				b = tc.file.bytes()
			}
			_, err := parseBytes(b, "bad.gguf")
			mustContain(t, err, append([]string{"bad.gguf: "}, tc.words...)...)
			if err != nil && !strings.HasPrefix(err.Error(), "bad.gguf: ") {
				t.Errorf("error %q does not start with the file name", err)
			}
		})
	}
}

// deepArray returns the raw value of depth nested arrays around one uint8.
func deepArray(depth int) []byte {
	b := rawArray(ValueUint8, 1, []byte{1})
	for d := 1; d < depth; d++ {
		b = rawArray(ValueArray, 1, b)
	}
	return b
}

// TestLenient checks inputs gguf.cpp rejects but this reader accepts.
func TestLenient(t *testing.T) {
	f32 := uint32(TypeF32)
	// Out of order with a gap: readable, not canonical.
	b := rawFile{version: 3, tensors: []rawTensor{
		{name: "a", dims: []uint64{8}, typ: f32, offset: 96},
		{name: "b", dims: []uint64{8}, typ: f32, offset: 0},
	}, dataBytes: 128}.bytes()
	f, err := parseBytes(b, "gap.gguf")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, f.Canonical(), `tensor 0 "a" is at data offset 96`, "would be at 0")
	// Rewriting makes it canonical.
	again, err := parseBytes(rewrite(t, f), "again.gguf")
	if err != nil || again.Canonical() != nil || again.Tensors[1].Offset != 32 {
		t.Errorf("rewrite: %v", err)
	}
	// Zero tensors and no header padding (gguf.cpp does not seek then).
	b = rawFile{version: 3, kvs: []rawKV{{"k", 0, []byte{1}}}}.bytes()[:24+8+1+4+1]
	f, err = parseBytes(b, "nopad.gguf")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, f.Canonical(), "inside the header padding")
	// Type 36 is I2_S, 96 BITCOS.
	b = rawFile{version: 3, tensors: []rawTensor{
		{name: "i2s", dims: []uint64{128, 2}, typ: 36},
		{name: "bitcos", dims: []uint64{128, 2}, typ: 96, offset: 96},
	}, dataBytes: 128}.bytes()
	f, err = parseBytes(b, "fork.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if f.Tensors[0].Size != 96 || f.Tensors[1].Size != 32 {
		t.Errorf("sizes %d %d", f.Tensors[0].Size, f.Tensors[1].Size)
	}
	if err := f.Canonical(); err != nil {
		t.Error(err)
	}
}

// shortReader claims a size larger than the data it has.
type shortReader struct{ b []byte }

func (s shortReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(s.b)) {
		return 0, io.EOF
	}
	n := copy(p, s.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestLyingSize(t *testing.T) {
	b := rawFile{version: 3, kvs: []rawKV{{"general.name", uint32(ValueString), le64(1 << 29)}}}.bytes()
	_, err := Parse(shortReader{b}, 1<<40, "liar.gguf")
	mustContain(t, err, "liar.gguf: ", `"general.name"`, "read error")
	if !strings.Contains(err.Error(), "EOF") {
		t.Errorf("error %q should wrap the EOF", err)
	}
}
