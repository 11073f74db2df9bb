package ggufx

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestExactBytes checks a 1-KV, 1-tensor file against bytes written out by
// hand.
func TestExactBytes(t *testing.T) {
	h := Header{
		Version: 3,
		KVs:     []KV{KVUint32("a", 7)},
		Tensors: []TensorInfo{{Name: "t", Dims: []uint64{2}, Type: TypeF32}},
	}
	data := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40} // 1.0f, 2.0f
	want := []byte{
		'G', 'G', 'U', 'F',
		3, 0, 0, 0, // version
		1, 0, 0, 0, 0, 0, 0, 0, // n_tensors
		1, 0, 0, 0, 0, 0, 0, 0, // n_kv
		1, 0, 0, 0, 0, 0, 0, 0, 'a', // key
		4, 0, 0, 0, // uint32
		7, 0, 0, 0, // value
		1, 0, 0, 0, 0, 0, 0, 0, 't', // tensor name
		1, 0, 0, 0, // n_dims
		2, 0, 0, 0, 0, 0, 0, 0, // ne0
		0, 0, 0, 0, // f32
		0, 0, 0, 0, 0, 0, 0, 0, // offset
		// 74 bytes so far: 22 bytes of padding to 96
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, // data
		// 24 bytes of padding to 128
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	}
	got := writeFile(t, h, [][]byte{data})
	if !bytes.Equal(got, want) {
		t.Fatalf("got\n% x\nwant\n% x", got, want)
	}
	if n, err := HeaderSize(h); err != nil || n != 96 {
		t.Errorf("HeaderSize = %d, %v; want 96", n, err)
	}
	if n := TensorInfoSize(h.Tensors[0]); n != 33 {
		t.Errorf("TensorInfoSize = %d, want 33", n)
	}
	hdr, ts, err := EncodeHeader(h)
	if err != nil || !bytes.Equal(hdr, want[:96]) || ts[0].Size != 8 || ts[0].Offset != 0 {
		t.Errorf("EncodeHeader = % x, %v, %v", hdr, ts, err)
	}
}

func TestWriterOffsets(t *testing.T) {
	h := smallHeader()
	h.KVs = append(h.KVs, KVUint32(KeyAlignment, 64))
	h.Alignment = 64
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	hs, _ := HeaderSize(h)
	if uint64(buf.Len()) != hs || w.DataOffset() != hs || hs%64 != 0 {
		t.Fatalf("header %d bytes, HeaderSize %d, DataOffset %d", buf.Len(), hs, w.DataOffset())
	}
	ts := w.Tensors()
	want := []struct{ off, size uint64 }{{0, 102}, {128, 132}, {320, 20}}
	for i, tw := range want {
		if ts[i].Offset != tw.off || ts[i].Size != tw.size {
			t.Errorf("tensor %d: offset %d size %d, want %d %d", i, ts[i].Offset, ts[i].Size, tw.off, tw.size)
		}
	}
	if w.FileSize() != hs+384 {
		t.Errorf("FileSize %d", w.FileSize())
	}

	// Byte-at-a-time writes give the same file as whole-tensor writes.
	whole := writeFile(t, h, nil)
	buf.Reset()
	w, _ = NewWriter(&buf, h)
	var all []byte
	for i, ti := range ts {
		all = append(all, pseudoRandom(uint64(i), int(ti.Size))...)
	}
	for i := range all {
		if _, err := w.Write(all[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), whole) {
		t.Error("byte-at-a-time writes differ")
	}
	// And one Write of everything.
	buf.Reset()
	w, _ = NewWriter(&buf, h)
	if n, err := w.Write(all); err != nil || n != len(all) {
		t.Fatal(n, err)
	}
	if err := w.Close(); err != nil || !bytes.Equal(buf.Bytes(), whole) {
		t.Error("single write differs", err)
	}
}

func TestWriterNoTensors(t *testing.T) {
	h := Header{KVs: []KV{KVString("general.name", "x")}}
	b := writeFile(t, h, nil)
	if len(b)%32 != 0 || len(b) == 0 {
		t.Fatalf("len %d", len(b))
	}
	f, err := parseBytes(b, "empty.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || len(f.Tensors) != 0 || f.DataOffset != uint64(len(b)) {
		t.Errorf("version %d tensors %d data offset %d", f.Version, len(f.Tensors), f.DataOffset)
	}
	if err := f.Canonical(); err != nil {
		t.Error(err)
	}
}

func TestWriterErrors(t *testing.T) {
	long := strings.Repeat("x", 64)
	tests := []struct {
		name string
		h    Header
		err  []string
	}{
		{"version 1", Header{Version: 1}, []string{"version 1"}},
		{"empty key", Header{KVs: []KV{{Type: ValueUint8, Raw: []byte{0}}}}, []string{"kv 0", "empty key"}},
		{"bad raw", Header{KVs: []KV{{Key: "x", Type: ValueUint32, Raw: []byte{0}}}}, []string{`kv 0 "x"`, "truncated"}},
		{"duplicate key", Header{KVs: []KV{KVUint8("x", 1), KVUint8("x", 2)}}, []string{`kv 1 "x"`, "duplicate key"}},
		{"alignment type", Header{KVs: []KV{KVUint64(KeyAlignment, 32)}}, []string{KeyAlignment, "uint32"}},
		{"alignment 3", Header{KVs: []KV{KVUint32(KeyAlignment, 3)}}, []string{"alignment 3", "power of two"}},
		{"alignment disagrees", Header{Alignment: 64, KVs: []KV{KVUint32(KeyAlignment, 32)}}, []string{"Alignment 64", "disagrees"}},
		{"alignment without kv", Header{Alignment: 64}, []string{"Alignment 64", KeyAlignment}},
		{"unknown type", Header{Tensors: []TensorInfo{{Name: "w", Dims: []uint64{32}, Type: 37}}}, []string{`tensor 0 "w"`, "unknown ggml type id 37"}},
		{"block size", Header{Tensors: []TensorInfo{{Name: "w", Dims: []uint64{100}, Type: TypeTQ2_0}}}, []string{`tensor 0 "w"`, "block size 256"}},
		{"zero dim", Header{Tensors: []TensorInfo{{Name: "w", Dims: []uint64{32, 0}, Type: TypeF32}}}, []string{"dimension 1 is 0"}},
		{"five dims", Header{Tensors: []TensorInfo{{Name: "w", Dims: []uint64{1, 1, 1, 1, 1}, Type: TypeF32}}}, []string{"n_dims 5"}},
		{"duplicate tensor", Header{Tensors: []TensorInfo{{Name: "w", Dims: []uint64{1}}, {Name: "w", Dims: []uint64{1}}}}, []string{`tensor 1 "w"`, "duplicate tensor name"}},
		{"long name", Header{Tensors: []TensorInfo{{Name: long, Dims: []uint64{1}}}}, []string{"64 bytes", "at most 63"}},
		{"nul in name", Header{Tensors: []TensorInfo{{Name: "a\x00b", Dims: []uint64{1}}}}, []string{"NUL"}},
		{"too big", Header{Tensors: []TensorInfo{{Name: "a", Dims: []uint64{1 << 62}, Type: TypeI8}, {Name: "b", Dims: []uint64{1 << 62}, Type: TypeI8}}}, []string{`tensor 1 "b"`, "2^63"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := NewWriter(&buf, tc.h)
			mustContain(t, err, tc.err...)
			if buf.Len() != 0 {
				t.Errorf("%d bytes written despite the error", buf.Len())
			}
			if _, err2 := HeaderSize(tc.h); err2 == nil {
				t.Error("HeaderSize accepted it")
			}
		})
	}
}

func TestWriterMisuse(t *testing.T) {
	h := Header{Tensors: []TensorInfo{{Name: "a", Dims: []uint64{4}, Type: TypeI8}, {Name: "b", Dims: []uint64{2}, Type: TypeI8}}}

	var buf bytes.Buffer
	w, _ := NewWriter(&buf, h)
	n, err := w.Write(make([]byte, 7))
	if n != 6 {
		t.Errorf("wrote %d bytes, want 6", n)
	}
	mustContain(t, err, "past the end", "1 bytes too many")
	if _, err := w.Write([]byte{1}); err == nil {
		t.Error("error not sticky")
	}

	w, _ = NewWriter(&buf, h)
	w.Write(make([]byte, 5))
	mustContain(t, w.Close(), `tensor 1 "b"`, "1 of 2 bytes")

	w, _ = NewWriter(&buf, h)
	w.Write(make([]byte, 6))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Error("second Close:", err)
	}
	_, err = w.Write([]byte{1})
	mustContain(t, err, "after Close")

	// An error from the underlying writer is returned and sticks.
	fw := &failWriter{after: 100}
	if _, err := NewWriter(fw, h); err != nil {
		t.Fatal(err)
	}
	fw = &failWriter{after: 0}
	_, err = NewWriter(fw, h)
	if !errors.Is(err, errFail) {
		t.Errorf("header write error = %v", err)
	}
}

var errFail = errors.New("disk full")

type failWriter struct{ after int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.after {
		return 0, errFail
	}
	f.after -= len(p)
	return len(p), nil
}

// TestWriteHeaderAt: a header written last lands exactly in the reserved
// room, and one that does not describe the written data is refused.
func TestWriteHeaderAt(t *testing.T) {
	h := Header{Version: 3, Alignment: 32, Tensors: []TensorInfo{
		{Name: "a", Type: TypeF32, Dims: []uint64{3}},
		{Name: "b", Type: TypeI8, Dims: []uint64{40}},
	}}
	want := &bytes.Buffer{}
	w, err := NewWriter(want, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(make([]byte, 12))
	w.Write(bytes.Repeat([]byte{7}, 40))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	reserved := w.DataOffset()
	file := make(writerAtBuffer, reserved)
	d := NewDataWriter(&file, 32)
	d.Write(make([]byte, 12))
	d.EndTensor()
	d.Write(bytes.Repeat([]byte{7}, 40))
	d.EndTensor()
	if err := WriteHeaderAt(&file, h, reserved, d.Spans()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, want.Bytes()) {
		t.Fatal("header written last differs from the Writer's file")
	}
	cases := []struct {
		name     string
		h        Header
		reserved uint64
		spans    []Span
		err      string
	}{
		{"room too small", h, reserved - 32, d.Spans(), "were reserved"},
		{"tensor missing", Header{Version: 3, Tensors: h.Tensors[:1]}, 64, d.Spans(), "lists 1 tensors, 2 were written"},
		{"size differs", h, reserved, []Span{{0, 12}, {32, 41}}, `tensor 1 "b": the header says 40 bytes at 32, 41 were written at 32`},
	}
	for _, c := range cases {
		if err := WriteHeaderAt(&writerAtBuffer{}, c.h, c.reserved, c.spans); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// writerAtBuffer is a growable io.Writer and io.WriterAt.
type writerAtBuffer []byte

func (b *writerAtBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

func (b *writerAtBuffer) WriteAt(p []byte, off int64) (int, error) {
	if need := int(off) + len(p); need > len(*b) {
		*b = append(*b, make([]byte, need-len(*b))...)
	}
	copy((*b)[off:], p)
	return len(p), nil
}
