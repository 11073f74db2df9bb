package ggufx

import (
	"bytes"
	"testing"
)

func TestCanonical(t *testing.T) {
	b := writeFile(t, smallHeader(), nil)
	f, err := parseBytes(b, "ok.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Canonical(); err != nil {
		t.Fatalf("written file not canonical: %v", err)
	}
	t0, t2 := f.Tensors[0], f.Tensors[2]
	pad0 := int(f.DataOffset + t0.Offset + t0.Size)    // first padding byte after tensor 0
	padLast := int(f.DataOffset+t2.Offset+t2.Size) + 3 // inside the final padding
	tests := []struct {
		name  string
		edit  func([]byte) []byte
		words []string
	}{
		{"header padding", func(b []byte) []byte { b[f.headerEnd] = 1; return b },
			[]string{"not canonical", "header padding byte at offset", "0x01"}},
		{"last header padding byte", func(b []byte) []byte { b[f.DataOffset-1] = 0xff; return b },
			[]string{"header padding byte"}},
		{"padding after tensor 0", func(b []byte) []byte { b[pad0] = 0x5a; return b },
			[]string{"not canonical", `after tensor 0 "token_embd.weight"`, "0x5a"}},
		{"final padding", func(b []byte) []byte { b[padLast] = 1; return b },
			[]string{`after tensor 2 "output_norm.weight"`}},
		{"trailing bytes", func(b []byte) []byte { return append(b, 0, 0, 0) },
			[]string{"3 trailing bytes"}},
		{"trailing block", func(b []byte) []byte { return append(b, make([]byte, 32)...) },
			[]string{"32 trailing bytes"}},
		{"short final padding", func(b []byte) []byte { return b[:len(b)-1] },
			[]string{"1 bytes short", `tensor 2 "output_norm.weight"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.edit(bytes.Clone(b))
			g, err := parseBytes(c, "edit.gguf")
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = g.Canonical()
			mustContain(t, err, append([]string{"edit.gguf: "}, tc.words...)...)
			// Rewriting repairs it.
			if fixed := rewrite(t, g); !bytes.Equal(fixed, b) {
				t.Error("rewrite does not restore the canonical file")
			}
		})
	}
	// Changing a tensor byte does not matter to Canonical.
	c := bytes.Clone(b)
	c[f.DataOffset] ^= 0xff
	if g, _ := parseBytes(c, "data.gguf"); g.Canonical() != nil {
		t.Error("a data byte made the file non-canonical")
	}
}

// TestCanonicalLayouts: files from other writers that are valid but laid
// out differently.
func TestCanonicalLayouts(t *testing.T) {
	f32 := uint32(TypeF32)
	tests := []struct {
		name  string
		file  rawFile
		words []string
	}{
		{"gap", rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{8}, typ: f32}, {name: "b", dims: []uint64{8}, typ: f32, offset: 64}}, dataBytes: 96},
			[]string{`tensor 1 "b" is at data offset 64`, "would be at 32"}},
		{"reversed", rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{8}, typ: f32, offset: 32}, {name: "b", dims: []uint64{8}, typ: f32, offset: 0}}, dataBytes: 64},
			[]string{`tensor 0 "a" is at data offset 32`}},
		{"no final padding", rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{3}, typ: f32}}, dataBytes: 12},
			[]string{"20 bytes short", `tensor 0 "a"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseBytes(tc.file.bytes(), "other.gguf")
			if err != nil {
				t.Fatal(err)
			}
			mustContain(t, f.Canonical(), tc.words...)
		})
	}
	ok := rawFile{version: 3, tensors: []rawTensor{{name: "a", dims: []uint64{3}, typ: f32}}, dataBytes: 32}
	f, err := parseBytes(ok.bytes(), "raw.gguf")
	if err != nil || f.Canonical() != nil {
		t.Errorf("hand-built canonical file: %v %v", err, f.Canonical())
	}
}
