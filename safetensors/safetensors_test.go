package safetensors

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func sample(t testing.TB) []byte {
	b, err := Encode([]Data{
		{Name: "a.weight", DType: "BF16", Shape: []uint64{2, 3}, Bytes: make([]byte, 12)},
		{Name: "b", DType: "F32", Shape: nil, Bytes: []byte{1, 2, 3, 4}},
		{Name: "c", DType: "U8", Shape: []uint64{0, 5}, Bytes: nil},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	f, err := Parse(bytes.NewReader(b), int64(len(b)), "x.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if f.Metadata["format"] != "pt" || len(f.Tensors) != 3 {
		t.Fatalf("parsed %+v", f)
	}
	want := []struct {
		name  string
		off   uint64
		size  uint64
		elems uint64
	}{{"a.weight", 0, 12, 6}, {"b", 12, 4, 1}, {"c", 16, 0, 0}}
	for i, w := range want {
		tn := f.Tensors[i]
		if tn.Name != w.name || tn.Offset != f.DataOffset+w.off || tn.Size != w.size || tn.Elements() != w.elems {
			t.Errorf("tensor %d = %+v, want %+v", i, tn, w)
		}
	}
	if got := b[f.Tensors[1].Offset : f.Tensors[1].Offset+4]; !bytes.Equal(got, []byte{1, 2, 3, 4}) {
		t.Errorf("b's bytes %v", got)
	}
}

// withHeader builds a file from a JSON header and n data bytes.
func withHeader(json string, n int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(json)))
	return append(append(b, json...), make([]byte, n)...)
}

func TestHostileHeaders(t *testing.T) {
	huge := binary.LittleEndian.AppendUint64(nil, 1<<62)
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"short", []byte{1, 2}, "too short"},
		{"length beyond limit", append(huge, '{', '}'), "exceeds"},
		{"length beyond file", append(binary.LittleEndian.AppendUint64(nil, 1000), '{', '}'), "past the end"},
		{"not object", withHeader(`[1]`, 0), "not a JSON object"},
		{"bad json", withHeader(`{"a":`, 0), `tensor "a"`},
		{"bad key", withHeader(`{1:2}`, 0), "header JSON"},
		{"trailing", withHeader(`{}{}`, 0), "after the header"},
		{"dtype", withHeader(`{"t":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}`, 1), `tensor "t": unknown dtype "Q4"`},
		{"no shape", withHeader(`{"t":{"dtype":"U8","data_offsets":[0,1]}}`, 1), `"t": shape and data_offsets are required`},
		{"negative dim", withHeader(`{"t":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}`, 1), `"t": shape`},
		{"many dims", withHeader(`{"t":{"dtype":"U8","shape":[`+strings.Repeat("1,", 400)+`1],"data_offsets":[0,1]}}`, 1), "more than"},
		{"overflow", withHeader(`{"t":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0), "overflows"},
		{"size mismatch", withHeader(`{"t":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 4), "data_offsets give 4"},
		{"offsets reversed", withHeader(`{"t":{"dtype":"U8","shape":[0],"data_offsets":[3,2]}}`, 4), "outside"},
		{"offsets beyond", withHeader(`{"t":{"dtype":"U8","shape":[4],"data_offsets":[18446744073709551611,18446744073709551615]}}`, 4), "outside"},
		{"three offsets", withHeader(`{"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}}`, 1), "[begin, end]"},
		{"gap", withHeader(`{"t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, 2), `"t": data begins at 1, want 0`},
		{"overlap", withHeader(`{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"u":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, 3), `"u": data begins at 1, want 2`},
		{"short data", withHeader(`{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}`, 5), "ends at 2"},
		{"duplicate", withHeader(`{"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"t":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, 2), `"t" appears twice`},
		{"metadata", withHeader(`{"__metadata__":{"a":1}}`, 0), "__metadata__"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(bytes.NewReader(c.file), int64(len(c.file)), "bad.safetensors")
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.safetensors: ") {
				t.Fatalf("error %v, want one naming the file and containing %q", err, c.want)
			}
		})
	}
}

func TestIndex(t *testing.T) {
	for _, c := range []struct {
		json string
		want string // "" for success
	}{
		{`{"metadata":{"total_size":1},"weight_map":{"a":"m-00002-of-00002.safetensors","b":"m-00001-of-00002.safetensors","c":"m-00001-of-00002.safetensors"}}`, ""},
		{`{"weight_map":{}}`, "no weight_map"},
		{`{"weight_map":{"a":"../x.safetensors"}}`, "plain file name"},
		{`{"weight_map":{"a":"http://h/x.safetensors"}}`, "plain file name"},
		{`{"weight_map":{"a":"sub/x.safetensors"}}`, "plain file name"},
		{`{"weight_map":{"a":"x.bin"}}`, "not a .safetensors"},
		{`[`, "index"},
	} {
		ix, err := ParseIndex([]byte(c.json), "i.json")
		if c.want == "" {
			if err != nil || len(ix.Files) != 2 || ix.Files[0] != "m-00001-of-00002.safetensors" {
				t.Errorf("%s: %+v, %v", c.json, ix, err)
			}
		} else if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.json, err, c.want)
		}
	}
}

// FuzzParse: no panic and no allocation beyond the input's size on any
// bytes; what parses tiles the data exactly.
func FuzzParse(f *testing.F) {
	f.Add(sample(f))
	f.Add(withHeader(`{"t":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}}`, 2))
	f.Add(withHeader(`{"t":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(bytes.NewReader(b), int64(len(b)), "fuzz")
		if err != nil {
			return
		}
		at := p.DataOffset
		for _, tn := range p.Tensors {
			if tn.Offset != at || tn.Size != tn.Elements()*uint64(DTypeSize(tn.DType)) {
				t.Fatalf("tensor %+v at %d", tn, at)
			}
			at += tn.Size
		}
		if at != uint64(len(b)) {
			t.Fatalf("data ends at %d of %d", at, len(b))
		}
	})
}

func TestNames(t *testing.T) {
	for _, c := range []struct{ hf, gguf string }{
		{"model.layers.12.self_attn.q_proj.weight", "blk.12.attn_q.weight"},
		{"model.layers.0.self_attn.o_proj.weight", "blk.0.attn_output.weight"},
		{"model.layers.3.mlp.down_proj.weight", "blk.3.ffn_down.weight"},
		{"model.layers.3.mlp.ffn_sub_norm.weight", "blk.3.ffn_sub_norm.weight"},
		{"model.layers.3.self_attn.inner_attn_ln.weight", "blk.3.attn_sub_norm.weight"},
		{"model.embed_tokens.weight", "token_embd.weight"},
		{"lm_head.weight", "output.weight"},
		{"model.norm.weight", "output_norm.weight"},
		{"blk.1.attn_k.weight", "blk.1.attn_k.weight"},
		{"model.layers.1.self_attn.rotary_emb.inv_freq", "model.layers.1.self_attn.rotary_emb.inv_freq"},
	} {
		if g := GGUFName(c.hf); g != c.gguf {
			t.Errorf("GGUFName(%q) = %q, want %q", c.hf, g, c.gguf)
		}
		if h := HFName(c.gguf); h != c.hf && c.hf != c.gguf {
			t.Errorf("HFName(%q) = %q, want %q", c.gguf, h, c.hf)
		}
	}
}

// FuzzParseIndex: no panic; a parsed index names only plain shard files.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte(`{"weight_map":{"a":"m-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map":{"a":"../x.safetensors"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := ParseIndex(b, "fuzz")
		if err != nil {
			return
		}
		for _, file := range ix.Files {
			if checkShardName(file) != nil || strings.Contains(file, "/") {
				t.Fatalf("shard %q accepted", file)
			}
		}
	})
}
