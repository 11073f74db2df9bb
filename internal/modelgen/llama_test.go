package modelgen

import (
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

func TestLlamaSpecCheck(t *testing.T) {
	llama := func(experts, used int) Spec {
		s := Small(ggufx.TypeTQ2_0, 1)
		s.Arch, s.Experts, s.ExpertsUsed = ArchLlama, experts, used
		return s
	}
	cases := []struct {
		name     string
		spec     Spec
		wantErr  string // "" for none
		wantUsed int
	}{
		{"MoE default used", llama(4, 0), "", 2},
		{"MoE one expert", llama(1, 0), "", 1},
		{"MoE 8x3", llama(8, 3), "", 3},
		{"dense", llama(0, 0), "", 0},
		{"used > experts", llama(4, 5), "experts used", 0},
		{"used without experts", llama(0, 2), "without experts", 0},
		{"too many experts", llama(2000, 0), "experts", 0},
		{"used on bitnet", func() Spec { s := Small(ggufx.TypeTQ2_0, 1); s.Experts, s.ExpertsUsed = 4, 2; return s }(), "for the llama arch", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.spec
			err := s.check()
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatal(err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, c.wantErr)
			case c.wantErr == "" && s.ExpertsUsed != c.wantUsed:
				t.Fatalf("ExpertsUsed %d, want %d", s.ExpertsUsed, c.wantUsed)
			}
		})
	}
}

// TestLlamaPlan checks the llama tensors against what llama.cpp's llama arch
// loads: a dense FFN without experts, a router and expert tensors (and no
// dense FFN, no bitnet sub-norms) with them; the bitnet archs are unchanged.
func TestLlamaPlan(t *testing.T) {
	names := func(s Spec) map[string][]uint64 {
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
		m := map[string][]uint64{}
		for _, ts := range s.plan() {
			m[ts.info.Name] = ts.info.Dims
		}
		return m
	}
	moe := Small(ggufx.TypeTQ2_0, 1)
	moe.Arch, moe.Experts = ArchLlama, 4
	m := names(moe)
	if len(m) != 2+10*moe.NLayer {
		t.Errorf("%d tensors in the MoE, want %d", len(m), 2+10*moe.NLayer)
	}
	for _, n := range []string{"ffn_gate", "ffn_up", "ffn_down", "attn_sub_norm", "ffn_sub_norm"} {
		if _, ok := m["blk.1."+n+".weight"]; ok {
			t.Errorf("the MoE has blk.1.%s", n)
		}
	}
	if d := m["blk.1.ffn_down_exps.weight"]; len(d) != 3 || d[0] != 512 || d[1] != 256 || d[2] != 4 {
		t.Errorf("ffn_down_exps dims %v", d)
	}
	if d := m["blk.1.ffn_gate_inp.weight"]; len(d) != 2 || d[0] != 256 || d[1] != 4 {
		t.Errorf("ffn_gate_inp dims %v", d)
	}
	dense := Small(ggufx.TypeTQ2_0, 1)
	dense.Arch = ArchLlama
	if m := names(dense); len(m) != 2+9*dense.NLayer || m["blk.0.ffn_gate_inp.weight"] != nil || m["blk.0.ffn_up.weight"] == nil {
		t.Errorf("dense llama tensors: %v", m)
	}
	bitnet := Small(ggufx.TypeTQ2_0, 1)
	bitnet.Experts = 4
	b := names(bitnet)
	if b["blk.1.ffn_up_exps.weight"] != nil || b["blk.0.ffn_up_exps.weight"] == nil || b["blk.0.ffn_sub_norm.weight"] == nil {
		t.Errorf("bitnet experts: blk.0 only, next to the dense FFN")
	}
	for _, kv := range bitnet.kvs() {
		if strings.Contains(kv.Key, "expert") || strings.Contains(kv.Key, "rope.dimension_count") {
			t.Errorf("bitnet has KV %s", kv.Key)
		}
	}
}
