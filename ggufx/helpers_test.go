package ggufx

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// writeFile writes h with the given payloads (one per tensor; nil means
// deterministic pseudo-random bytes of the right size) through a Writer.
func writeFile(t testing.TB, h Header, payloads [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	for i, ti := range w.Tensors() {
		var p []byte
		if i < len(payloads) && payloads[i] != nil {
			p = payloads[i]
		} else {
			p = pseudoRandom(uint64(i), int(ti.Size))
		}
		if _, err := w.Write(p); err != nil {
			t.Fatalf("Write tensor %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if uint64(buf.Len()) != w.FileSize() {
		t.Fatalf("wrote %d bytes, FileSize says %d", buf.Len(), w.FileSize())
	}
	return buf.Bytes()
}

func pseudoRandom(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func parseBytes(b []byte, name string) (*File, error) {
	return Parse(bytes.NewReader(b), int64(len(b)), name)
}

// rewrite re-writes a parsed file with HeaderFromFile and its tensor bytes.
func rewrite(t testing.TB, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, HeaderFromFile(f))
	if err != nil {
		t.Fatalf("NewWriter(HeaderFromFile): %v", err)
	}
	var tb []byte
	for i := range f.Tensors {
		if tb, err = f.ReadTensor(i, tb); err != nil {
			t.Fatalf("ReadTensor %d: %v", i, err)
		}
		if _, err := w.Write(tb); err != nil {
			t.Fatalf("Write %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes()
}

// smallHeader is a small valid header with a few stock tensors.
func smallHeader() Header {
	return Header{
		Version: 3,
		KVs: []KV{
			KVString("general.architecture", "llama"),
			KVUint32("llama.block_count", 1),
			KVStringArray("tokenizer.ggml.tokens", []string{"a", " ", ""}),
		},
		Tensors: []TensorInfo{
			{Name: "token_embd.weight", Dims: []uint64{32, 3}, Type: TypeQ8_0},
			{Name: "blk.0.attn_q.weight", Dims: []uint64{256, 2}, Type: TypeTQ2_0},
			{Name: "output_norm.weight", Dims: []uint64{5}, Type: TypeF32},
		},
	}
}

// rawFile encodes a GGUF file field by field without any validation, to
// build corrupt inputs.
type rawFile struct {
	magic     string
	version   uint32
	nTensors  *uint64 // nil: len(tensors)
	nKV       *uint64 // nil: len(kvs)
	kvs       []rawKV
	tensors   []rawTensor
	align     uint64 // padding after the header; 0: 32
	dataBytes int    // zero bytes of data after the padding
}

type rawKV struct {
	key string
	typ uint32
	raw []byte
}

type rawTensor struct {
	name   string
	nDims  *uint32 // nil: len(dims)
	dims   []uint64
	typ    uint32
	offset uint64
}

func u64p(v uint64) *uint64 { return &v }
func u32p(v uint32) *uint32 { return &v }

func (r rawFile) bytes() []byte {
	b := []byte(r.magic)
	if r.magic == "" {
		b = []byte(Magic)
	}
	b = binary.LittleEndian.AppendUint32(b, r.version)
	nt, nk := uint64(len(r.tensors)), uint64(len(r.kvs))
	if r.nTensors != nil {
		nt = *r.nTensors
	}
	if r.nKV != nil {
		nk = *r.nKV
	}
	b = binary.LittleEndian.AppendUint64(b, nt)
	b = binary.LittleEndian.AppendUint64(b, nk)
	for _, kv := range r.kvs {
		b = appendString(b, kv.key)
		b = binary.LittleEndian.AppendUint32(b, kv.typ)
		b = append(b, kv.raw...)
	}
	for _, t := range r.tensors {
		b = appendString(b, t.name)
		nd := uint32(len(t.dims))
		if t.nDims != nil {
			nd = *t.nDims
		}
		b = binary.LittleEndian.AppendUint32(b, nd)
		for _, d := range t.dims {
			b = binary.LittleEndian.AppendUint64(b, d)
		}
		b = binary.LittleEndian.AppendUint32(b, t.typ)
		b = binary.LittleEndian.AppendUint64(b, t.offset)
	}
	a := r.align
	if a == 0 {
		a = 32
	}
	for uint64(len(b))%a != 0 {
		b = append(b, 0)
	}
	return append(b, make([]byte, r.dataBytes)...)
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func le64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// rawArray encodes an array value: element type, count, element bytes.
func rawArray(et ValueType, n uint64, elems ...[]byte) []byte {
	b := append(le32(uint32(et)), le64(n)...)
	for _, e := range elems {
		b = append(b, e...)
	}
	return b
}

func rawStr(s string) []byte { return appendString(nil, s) }

func mustContain(t *testing.T, err error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one mentioning %q", words)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}
