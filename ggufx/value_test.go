package ggufx

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestValueTypeNames(t *testing.T) {
	want := []string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
		"float32", "bool", "string", "array", "uint64", "int64", "float64"}
	for i, w := range want {
		if got := ValueType(i).String(); got != w {
			t.Errorf("ValueType(%d) = %q, want %q", i, got, w)
		}
	}
	if got := ValueType(13).String(); got != "value_type(13)" {
		t.Errorf("ValueType(13) = %q", got)
	}
}

func TestScalarAccessors(t *testing.T) {
	tests := []struct {
		kv     KV
		raw    []byte
		u64    uint64
		u64ok  bool
		i64    int64
		i64ok  bool
		u32ok  bool
		f64    float64
		f64ok  bool
		render string
	}{
		{KVUint8("k", 200), []byte{200}, 200, true, 200, true, true, 200, true, "200"},
		{KVInt8("k", -3), []byte{0xfd}, 0, false, -3, true, false, -3, true, "-3"},
		{KVUint16("k", 0xbeef), []byte{0xef, 0xbe}, 0xbeef, true, 0xbeef, true, true, 0xbeef, true, "48879"},
		{KVInt16("k", -2), []byte{0xfe, 0xff}, 0, false, -2, true, false, -2, true, "-2"},
		{KVUint32("k", 7), []byte{7, 0, 0, 0}, 7, true, 7, true, true, 7, true, "7"},
		{KVInt32("k", -1), []byte{0xff, 0xff, 0xff, 0xff}, 0, false, -1, true, false, -1, true, "-1"},
		{KVUint64("k", 1<<40), le64(1 << 40), 1 << 40, true, 1 << 40, true, false, 1 << 40, true, "1099511627776"},
		{KVUint64("k", math.MaxUint64), le64(math.MaxUint64), math.MaxUint64, true, 0, false, false, math.MaxUint64, true, "18446744073709551615"},
		{KVInt64("k", -5), le64(uint64(1<<64 - 5)), 0, false, -5, true, false, -5, true, "-5"},
		{KVFloat32("k", 0.5), le32(math.Float32bits(0.5)), 0, false, 0, false, false, 0.5, true, "0.5"},
		{KVFloat64("k", -2.25), le64(math.Float64bits(-2.25)), 0, false, 0, false, false, -2.25, true, "-2.25"},
		{KVBool("k", true), []byte{1}, 0, false, 0, false, false, 0, false, "true"},
	}
	for _, tc := range tests {
		kv := tc.kv
		if !bytes.Equal(kv.Raw, tc.raw) {
			t.Errorf("%s: raw % x, want % x", kv.Type, kv.Raw, tc.raw)
		}
		if err := kv.Validate(); err != nil {
			t.Errorf("%s: Validate: %v", kv.Type, err)
		}
		u, ok := kv.AsUint64()
		if ok != tc.u64ok || u != tc.u64 {
			t.Errorf("%s: AsUint64 = %d, %v", kv.Type, u, ok)
		}
		i, ok := kv.AsInt64()
		if ok != tc.i64ok || i != tc.i64 {
			t.Errorf("%s: AsInt64 = %d, %v", kv.Type, i, ok)
		}
		u32, ok := kv.AsUint32()
		if ok != tc.u32ok || (ok && uint64(u32) != tc.u64) {
			t.Errorf("%s: AsUint32 = %d, %v", kv.Type, u32, ok)
		}
		f, ok := kv.AsFloat64()
		if ok != tc.f64ok || f != tc.f64 {
			t.Errorf("%s: AsFloat64 = %g, %v", kv.Type, f, ok)
		}
		if got := kv.ValueString(); got != tc.render {
			t.Errorf("%s: ValueString = %q, want %q", kv.Type, got, tc.render)
		}
	}
	if b, ok := KVBool("k", false).AsBool(); !ok || b {
		t.Error("KVBool(false)")
	}
	// gguf.cpp treats any non-zero byte as true; the byte itself is kept.
	if b, ok := (KV{Key: "k", Type: ValueBool, Raw: []byte{2}}).AsBool(); !ok || !b {
		t.Error("bool byte 2 should read as true")
	}
	if _, ok := KVString("k", "x").AsUint64(); ok {
		t.Error("string AsUint64 should fail")
	}
}

func TestStrings(t *testing.T) {
	odd := []string{"", " ", "\t", "\n  ", "\xff\xfe\x00z", "  lead", "trail  ", "▁the"}
	for _, s := range odd {
		kv := KVString("k", s)
		got, ok := kv.AsString()
		if !ok || got != s {
			t.Errorf("AsString(%q) = %q, %v", s, got, ok)
		}
		if len(kv.Raw) != 8+len(s) {
			t.Errorf("raw length %d for %q", len(kv.Raw), s)
		}
	}
	arr := KVStringArray("tokenizer.ggml.tokens", odd)
	if err := arr.Validate(); err != nil {
		t.Fatal(err)
	}
	got, ok := arr.StringArray()
	if !ok || !slices.Equal(got, odd) {
		t.Errorf("StringArray = %q, %v", got, ok)
	}
	et, n, ok := arr.ArrayLen()
	if !ok || et != ValueString || n != uint64(len(odd)) {
		t.Errorf("ArrayLen = %v %d %v", et, n, ok)
	}
	if arr.ValueString() != "[8 x string]" {
		t.Errorf("ValueString = %q", arr.ValueString())
	}
}

func TestArrays(t *testing.T) {
	i32 := KVInt32Array("a", []int32{1, -2, 3})
	if v, ok := i32.Int32Array(); !ok || !slices.Equal(v, []int32{1, -2, 3}) {
		t.Errorf("Int32Array = %v %v", v, ok)
	}
	f32 := KVFloat32Array("f", []float32{0.25, -1})
	if v, ok := f32.Float32Array(); !ok || !slices.Equal(v, []float32{0.25, -1}) {
		t.Errorf("Float32Array = %v %v", v, ok)
	}
	u32 := KVUint32Array("u", []uint32{9})
	if v, ok := u32.Uint32Array(); !ok || !slices.Equal(v, []uint32{9}) {
		t.Errorf("Uint32Array = %v %v", v, ok)
	}
	if _, ok := u32.Int32Array(); ok {
		t.Error("uint32 array read as int32")
	}
	for _, kv := range []KV{i32, f32, u32, KVUint8Array("b", []byte{1, 2}), KVUint64Array("c", []uint64{1}),
		KVUint8Array("empty", nil), KVStringArray("empty", nil)} {
		if err := kv.Validate(); err != nil {
			t.Errorf("%s: %v", kv.Key, err)
		}
	}

	// Nested: an array of two arrays (of uint32 and of strings).
	inner1 := KVUint32Array("", []uint32{1, 2})
	inner2 := KVStringArray("", []string{" ", ""})
	_, err := KVArrayOf("nested", ValueArray, []KV{inner1, KVUint8("", 1)})
	mustContain(t, err, "element 1 is uint8")
	nested, err := KVArrayOf("nested", ValueArray, []KV{inner1, inner2})
	if err != nil {
		t.Fatal(err)
	}
	items, ok := nested.Items()
	if !ok || len(items) != 2 || !bytes.Equal(items[0].Raw, inner1.Raw) || !bytes.Equal(items[1].Raw, inner2.Raw) {
		t.Fatalf("Items = %v %v", items, ok)
	}
	if s, ok := items[1].StringArray(); !ok || !slices.Equal(s, []string{" ", ""}) {
		t.Errorf("inner strings = %q", s)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		kv   KV
		err  string
	}{
		{"empty key", KV{Type: ValueUint8, Raw: []byte{1}}, "empty key"},
		{"short u32", KV{Key: "k", Type: ValueUint32, Raw: []byte{1, 2}}, "truncated"},
		{"long u8", KV{Key: "k", Type: ValueUint8, Raw: []byte{1, 2}}, "1 bytes after"},
		{"bad type", KV{Key: "k", Type: 13, Raw: []byte{1}}, "invalid value type 13"},
		{"string too long", KV{Key: "k", Type: ValueString, Raw: append(le64(5), 'a')}, "string length 5 exceeds the 1 bytes left"},
		{"string over limit", KV{Key: "k", Type: ValueString, Raw: le64(1 << 31)}, "limit"},
		{"array bad elem", KV{Key: "k", Type: ValueArray, Raw: rawArray(13, 0)}, "invalid element type 13"},
		{"array count", KV{Key: "k", Type: ValueArray, Raw: rawArray(ValueUint32, 3, le32(1))}, "cannot fit"},
		{"array over limit", KV{Key: "k", Type: ValueArray, Raw: rawArray(ValueUint8, 1<<30+1)}, "limit"},
		{"array element string", KV{Key: "k", Type: ValueArray, Raw: rawArray(ValueString, 2, rawStr("a"), le64(9))}, "array element 1: string length 9"},
	}
	for _, tc := range tests {
		err := tc.kv.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
		}
	}
	// Depth limit: MaxArrayDepth nested arrays are fine, one more is not.
	deep := KVUint8Array("", []byte{1})
	for d := 1; d < MaxArrayDepth; d++ {
		var err error
		if deep, err = KVArrayOf("", ValueArray, []KV{deep}); err != nil {
			t.Fatalf("depth %d: %v", d, err)
		}
	}
	deep.Key = "deep"
	if err := deep.Validate(); err != nil {
		t.Fatalf("depth %d: %v", MaxArrayDepth, err)
	}
	_, err := KVArrayOf("deeper", ValueArray, []KV{deep})
	mustContain(t, err, "nested deeper")
}
