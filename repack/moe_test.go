package repack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// moeSpec is the small Mixtral-style llama MoE the compat test runs in
// llama.cpp: n_embd 256, n_ff 512, 4 experts (2 used).
func moeSpec(typ ggufx.GGMLType, seed uint64, layers int) modelgen.Spec {
	s := modelgen.Small(typ, seed)
	s.Arch, s.Experts, s.NLayer = modelgen.ArchLlama, 4, layers
	return s
}

// TestRepackLlamaMoE generates llama MoE models, repacks them and checks
// them bit for bit: every expert tensor (3-D, MUL_MAT_ID in llama.cpp)
// becomes BITCOS, decodes to the source's weights and scales expert by
// expert, Verify finds nothing, and unpack gives the source back.
func TestRepackLlamaMoE(t *testing.T) {
	cases := []struct {
		name string
		spec modelgen.Spec
		used int // want llama.expert_used_count
	}{
		{"TQ2_0 4x2 2 layers", moeSpec(ggufx.TypeTQ2_0, 70, 2), 2},
		{"TQ2_0 4x2 4 layers", moeSpec(ggufx.TypeTQ2_0, 71, 4), 2},
		{"TQ2_0 8x3 untied head scale tensors", func() modelgen.Spec {
			s := moeSpec(ggufx.TypeTQ2_0, 72, 2)
			s.Experts, s.ExpertsUsed, s.Output, s.ScaleTensors = 8, 3, true, true
			return s
		}(), 3},
		{"Q2_0 4x2", moeSpec(ggufx.TypeQ2_0, 73, 2), 2},
		{"I2_S 4x2", moeSpec(ggufx.TypeI2_S, 74, 2), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := genModel(t, c.spec)
			checkMoEHeader(t, in, c.spec, c.used)
			before, _ := os.ReadFile(in)
			out := filepath.Join(filepath.Dir(in), "out.bitcos.gguf")
			rep, err := Repack(in, Options{Output: out})
			if err != nil {
				t.Fatal(err)
			}
			// 4 attention projections and 3 expert tensors per layer.
			if want := 7 * c.spec.NLayer; rep.Converted != want || rep.Kept != 0 {
				t.Errorf("%d converted, %d kept; want %d, 0", rep.Converted, rep.Kept, want)
			}
			for _, d := range rep.Tensors {
				if strings.Contains(d.Name, "_exps.weight") && d.Layout != LayoutBitcos {
					t.Errorf("%s: layout %s (%s), want BITCOS", d.Name, d.Layout, d.Reason)
				}
			}
			exps := 0
			for l := 0; l < c.spec.NLayer; l++ {
				for _, n := range []string{"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"} {
					compareExperts(t, in, out, fmt.Sprintf("blk.%d.%s", l, n), c.spec)
					exps++
				}
			}
			if exps != 3*c.spec.NLayer {
				t.Fatalf("%d expert tensors compared", exps)
			}
			v, err := Verify(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if !v.OK() || v.BitcosChecked != rep.Converted {
				t.Fatalf("verify: %d BITCOS of %d converted checked, diffs %v", v.BitcosChecked, rep.Converted, v.Diffs)
			}
			back := filepath.Join(filepath.Dir(in), "back.gguf")
			if err := Unpack(out, back, false); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(back); !bytes.Equal(got, before) {
				t.Fatalf("unpack is not byte-identical (%d vs %d bytes)", len(got), len(before))
			}
		})
	}
}

// checkMoEHeader checks what llama.cpp's llama arch needs of the file: the
// expert KVs and, per layer, exactly its tensors with its shapes (the loader
// refuses unclaimed tensors and wrong shapes).
func checkMoEHeader(t *testing.T, path string, s modelgen.Spec, used int) {
	t.Helper()
	f, err := ggufx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for key, want := range map[string]uint32{
		"llama.expert_count":         uint32(s.Experts),
		"llama.expert_used_count":    uint32(used),
		"llama.embedding_length":     uint32(s.NEmbd),
		"llama.feed_forward_length":  uint32(s.NFF),
		"llama.block_count":          uint32(s.NLayer),
		"llama.rope.dimension_count": uint32(s.NEmbd / s.NHead),
	} {
		kv, ok := f.KV(key)
		if got, ok2 := kv.AsUint32(); !ok || !ok2 || got != want {
			t.Errorf("%s = %v (present %v), want %d", key, got, ok, want)
		}
	}
	if a, _ := f.KV("general.architecture"); func() string { v, _ := a.AsString(); return v }() != "llama" {
		t.Errorf("general.architecture is not llama")
	}
	E, F, X := uint64(s.NEmbd), uint64(s.NFF), uint64(s.Experts)
	Ekv := E / uint64(s.NHead) * uint64(s.NHeadKV)
	want := map[string][]uint64{
		"token_embd.weight":  {E, uint64(s.NVocab)},
		"output_norm.weight": {E},
	}
	if s.Output {
		want["output.weight"] = []uint64{E, uint64(s.NVocab)}
	}
	for l := 0; l < s.NLayer; l++ {
		b := fmt.Sprintf("blk.%d.", l)
		for n, d := range map[string][]uint64{
			"attn_norm": {E}, "attn_q": {E, E}, "attn_k": {E, Ekv}, "attn_v": {E, Ekv},
			"attn_output": {E, E}, "ffn_norm": {E}, "ffn_gate_inp": {E, X},
			"ffn_gate_exps": {E, F, X}, "ffn_up_exps": {E, F, X}, "ffn_down_exps": {F, E, X},
		} {
			want[b+n+".weight"] = d
		}
		if s.ScaleTensors {
			for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_output"} {
				want[b+n+".scale"] = []uint64{1}
			}
			for _, n := range []string{"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"} {
				want[b+n+".scale"] = []uint64{X}
			}
		}
	}
	if len(f.Tensors) != len(want) {
		t.Errorf("%d tensors, want %d", len(f.Tensors), len(want))
	}
	for _, ti := range f.Tensors {
		d, ok := want[ti.Name]
		if !ok {
			t.Errorf("unexpected tensor %s", ti.Name)
			continue
		}
		if !equalDims(ti.Dims, d) {
			t.Errorf("%s: dims %v, want %v", ti.Name, ti.Dims, d)
		}
		if ti.Dims[0]%256 != 0 && (ti.Type == s.Type) {
			t.Errorf("%s: ternary row length %d is not a multiple of 256", ti.Name, ti.Dims[0])
		}
		if strings.HasSuffix(ti.Name, "_exps.weight") && ti.Type != s.Type {
			t.Errorf("%s: type %v, want %v", ti.Name, ti.Type, s.Type)
		}
		if strings.HasSuffix(ti.Name, "ffn_gate_inp.weight") && ti.Type != ggufx.TypeF32 {
			t.Errorf("%s: type %v, want F32", ti.Name, ti.Type)
		}
	}
}

// compareExperts decodes a source expert tensor and its BITCOS family from
// the raw files (not through Verify) and compares weights and scales bit for
// bit, expert by expert; it also checks each expert has its own zero
// pattern (the tensors are not one expert repeated).
func compareExperts(t *testing.T, in, out, base string, s modelgen.Spec) {
	t.Helper()
	src, err := ggufx.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := ggufx.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	read := func(f *ggufx.File, name string) ([]byte, ggufx.TensorInfo) {
		i, ok := f.Tensor(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		b, err := f.ReadTensor(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b, f.Tensors[i]
	}
	raw, info := read(src, base+".weight")
	k, rows := int(info.Dims[0]), int(info.Dims[1]*info.Dims[2])
	var a, b format.Planes
	var sa format.Scales
	if err := format.CodecFor(info.Type).Decode(raw, k, rows, &a, &sa); err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	bitmap, binfo := read(dst, base+".weight")
	if binfo.Type != ggufx.TypeBITCOS || !equalDims(binfo.Dims, info.Dims) {
		t.Fatalf("%s: repacked as %v %v", base, binfo.Type, binfo.Dims)
	}
	signs, _ := read(dst, base+".bitcos_signs")
	index, _ := read(dst, base+".bitcos_rows")
	scales, _ := read(dst, base+".bitcos_scales")
	if err := format.DecodeBitcos(k, rows, bitmap, signs, index, &b); err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	perExpert := int(info.Dims[1])
	if r, j, diff := format.FirstDiff(&a, &b); diff {
		t.Fatalf("%s: expert %d row %d weight %d differs", base, r/perExpert, r%perExpert, j)
	}
	switch {
	case sa.Group > 0:
		if len(scales) != 2*len(sa.F16) {
			t.Fatalf("%s: %d scale bytes, want %d", base, len(scales), 2*len(sa.F16))
		}
		for i, h := range sa.F16 {
			if got := binary.LittleEndian.Uint16(scales[2*i:]); got != h {
				t.Fatalf("%s: scale %d (expert %d): %#04x, want %#04x", base, i, i/(len(sa.F16)/s.Experts), got, h)
			}
		}
	default:
		if len(scales) != 4 || binary.LittleEndian.Uint32(scales) != sa.F32 {
			t.Fatalf("%s: per-tensor scale %x, want %#08x", base, scales, sa.F32)
		}
	}
	// Experts differ from one another.
	w := a.WordsPerRow() * perExpert
	for e := 1; e < s.Experts; e++ {
		if slices.Equal(a.Present[:w], a.Present[e*w:(e+1)*w]) {
			t.Errorf("%s: expert %d has expert 0's zero pattern", base, e)
		}
	}
}
