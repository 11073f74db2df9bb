package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

func TestSplitRepack(t *testing.T) {
	s := modelgen.Small(ggufx.TypeI2_S, 50)
	in := genModel(t, s)
	dir := filepath.Dir(in)
	whole := filepath.Join(dir, "whole.gguf")
	if _, err := Repack(in, Options{Output: whole}); err != nil {
		t.Fatal(err)
	}
	wholeBytes, _ := os.ReadFile(whole)
	for _, c := range []struct {
		name   string
		opt    SplitOptions
		shards int
	}{
		{"by tensors", SplitOptions{MaxTensors: 10}, 0},
		{"by size", SplitOptions{MaxBytes: 200 * 1000}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.bitcos.gguf")
			rep, err := Repack(in, Options{Output: out, Split: c.opt})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Shards) < 2 {
				t.Fatalf("%d shards", len(rep.Shards))
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("the single file was left next to the shards")
			}
			n := len(rep.Shards)
			total := 0
			for s, p := range rep.Shards {
				if p != ShardPath(filepath.Join(filepath.Dir(out), "m.bitcos"), s, n) {
					t.Fatalf("shard %d is %s", s, p)
				}
				g, err := ggufx.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				// llama-gguf-split's KV layout: the three split keys last.
				k := g.KVs[len(g.KVs)-3:]
				if k[0].Key != KeySplitNo || k[1].Key != KeySplitTensors || k[2].Key != KeySplitCount {
					t.Fatalf("shard %d ends with KVs %v", s, k)
				}
				if no, _ := k[0].AsUint64(); no != uint64(s) {
					t.Fatalf("shard %d has split.no %d", s, no)
				}
				if s > 0 && len(g.KVs) != 3 {
					t.Fatalf("shard %d has %d KVs, want only the split keys", s, len(g.KVs))
				}
				if c.opt.MaxBytes > 0 && s < n-1 {
					var data uint64
					for _, ti := range g.Tensors {
						data += pad(ti.Size, 32)
					}
					if int64(data) > c.opt.MaxBytes {
						t.Fatalf("shard %d holds %d bytes of tensors, max %d", s, data, c.opt.MaxBytes)
					}
				}
				total += len(g.Tensors)
				g.Close()
			}
			// Joined, the shards are the unsplit repack byte for byte, and
			// verify/unpack/stats take the first shard.
			joined, closeShards, err := joinShards(rep.Shards, rep.Shards[0])
			if err != nil {
				t.Fatal(err)
			}
			b := make([]byte, joined.FileSize)
			if _, err := joined.ReaderAt().ReadAt(b, 0); err != nil {
				t.Fatal(err)
			}
			closeShards()
			if !bytes.Equal(b, wholeBytes) {
				t.Fatal("joined shards differ from the unsplit repack")
			}
			if v, err := Verify(in, rep.Shards[0]); err != nil || !v.OK() {
				t.Fatalf("verify: %v %+v", err, v)
			}
			back := filepath.Join(t.TempDir(), "back.gguf")
			if err := Unpack(rep.Shards[0], back); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(in)
			if b, _ := os.ReadFile(back); !bytes.Equal(a, b) {
				t.Fatal("unpack of shards is not byte-identical to the original")
			}
			if _, err := Stats(rep.Shards[0], false, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := Verify(in, rep.Shards[1]); err == nil {
				t.Fatal("a later shard accepted as the set")
			}
		})
	}
}

func TestParseSplitSize(t *testing.T) {
	for s, want := range map[string]int64{"500M": 500e6, "2G": 2e9, "1m": 1e6} {
		if got, err := ParseSplitSize(s); err != nil || got != want {
			t.Errorf("%s: %d %v", s, got, err)
		}
	}
	for _, s := range []string{"", "5", "0M", "-1G", "5K", "xM"} {
		if _, err := ParseSplitSize(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
