package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// refShards is what sharded output is held to: the one-file repack at
// whole, cut as llama-gguf-split cuts a file (split_strategy in
// tools/gguf-split at the pin), restated here on its own terms and written
// with ggufx.Writer. The first shard holds every KV; each shard ends with
// split.no (u16), split.tensors.count (i32), split.count (u16); a new shard
// starts at every multiple of MaxTensors, or before a tensor that would take
// the shard's padded tensor bytes past MaxBytes. It returns the shards'
// bytes, or nil when llama-gguf-split refuses (an empty first shard).
func refShards(t *testing.T, whole string, opt SplitOptions) [][]byte {
	t.Helper()
	f, err := ggufx.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var groups [][]int
	var cur []int
	var size uint64
	for i, ti := range f.Tensors {
		nb := (ti.Size + 31) / 32 * 32
		split := size+nb > uint64(opt.MaxBytes)
		if opt.MaxTensors > 0 {
			split = i > 0 && i%opt.MaxTensors == 0
		}
		if split {
			if len(cur) == 0 {
				return nil
			}
			groups, cur, size = append(groups, cur), nil, nb
		} else {
			size += nb
		}
		cur = append(cur, i)
	}
	groups = append(groups, cur)
	var out [][]byte
	for s, g := range groups {
		h := ggufx.Header{Version: 3, Alignment: 32}
		if s == 0 {
			h.KVs = slices.Clone(f.KVs)
		}
		h.KVs = append(h.KVs, ggufx.KVUint16(ggufsplit.KeyNo, uint16(s)),
			ggufx.KVInt32(ggufsplit.KeyTensors, int32(len(f.Tensors))), ggufx.KVUint16(ggufsplit.KeyCount, uint16(len(groups))))
		for _, i := range g {
			ti := f.Tensors[i]
			h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: ti.Name, Dims: ti.Dims, Type: ti.Type})
		}
		var buf bytes.Buffer
		w, err := ggufx.NewWriter(&buf, h)
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range g {
			data, err := f.ReadTensor(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// familyCutSize is a split size whose first cut falls inside a BITCOS
// family of the one-file repack at whole: right before its first companion
// (the padded bytes of every tensor before it).
func familyCutSize(t *testing.T, whole string) int64 {
	f, err := ggufx.Open(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var size int64
	for _, ti := range f.Tensors {
		if bitcos.IsCompanion(ti.Name) && size > 0 {
			return size
		}
		size += int64(pad(ti.Size, 32))
	}
	t.Fatal("no BITCOS family")
	return 0
}

// TestShardsAreTheSplitOneFileRepack: shards written directly are, byte for
// byte, the one-file repack cut into shards, over models (stock types,
// a quantized head, a float master) and split settings (by count, by size,
// cuts inside BITCOS families, a single shard); the output folder holds
// them and nothing else, and the set reads back as the one file (ggufsplit.Join):
// verify, unpack and stats take it.
func TestShardsAreTheSplitOneFileRepack(t *testing.T) {
	models := []struct {
		name string
		spec modelgen.Spec
		opt  Options
	}{
		{"i2_s", modelgen.Small(ggufx.TypeI2_S, 50), Options{}},
		{"tq1_0 wide", wideSpec(ggufx.TypeTQ1_0, 3), Options{}},
		{"tq2_0 q8_0 head", modelgen.Small(ggufx.TypeTQ2_0, 7), Options{Heads: map[string]format.HeadType{TokenEmbd: format.HeadTypes["q8_0"]}}},
		{"f16 master", modelgen.Small(ggufx.TypeF16, 9), Options{Ternarize: true}},
	}
	for _, m := range models {
		t.Run(m.name, func(t *testing.T) {
			in := genModel(t, m.spec)
			whole := filepath.Join(t.TempDir(), "whole.gguf")
			opt := m.opt
			opt.Output = whole
			if _, err := Repack(in, opt); err != nil {
				t.Fatal(err)
			}
			splits := []struct {
				name      string
				split     SplitOptions
				familyCut bool // a shard must begin with a companion
			}{
				{"10 tensors", SplitOptions{MaxTensors: 10}, false},
				{"1 tensor", SplitOptions{MaxTensors: 1}, true},
				{"6 tensors", SplitOptions{MaxTensors: 6}, true},
				{"200 kB", SplitOptions{MaxBytes: 200 * 1000}, false},
				{"cut in a family", SplitOptions{MaxBytes: familyCutSize(t, whole)}, true},
				{"one shard by count", SplitOptions{MaxTensors: 1 << 20}, false},
				{"one shard by size", SplitOptions{MaxBytes: 1 << 40}, false},
			}
			for _, sp := range splits {
				t.Run(sp.name, func(t *testing.T) {
					checkShards(t, in, whole, opt, sp.split, sp.familyCut)
				})
			}
		})
	}
}

func checkShards(t *testing.T, in, whole string, opt Options, split SplitOptions, familyCut bool) {
	want := refShards(t, whole, split)
	dir := t.TempDir()
	opt.Output, opt.Split = filepath.Join(dir, "m.bitcos.gguf"), split
	rep, err := Repack(in, opt)
	if want == nil {
		if err == nil || !strings.Contains(err.Error(), "empty first shard") {
			t.Fatalf("llama-gguf-split refuses this split, repack said %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for s := range want {
		names = append(names, filepath.Base(ggufsplit.Path(filepath.Join(dir, "m.bitcos"), s, len(want))))
	}
	var got []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Fatalf("output folder holds %v, want %v", got, names)
	}
	var size int64
	began := false
	for s, p := range rep.Shards {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(p) != names[s] || !bytes.Equal(b, want[s]) {
			t.Fatalf("shard %d (%s, %d bytes) differs from the reference (%d bytes)", s, p, len(b), len(want[s]))
		}
		size += int64(len(b))
		if s > 0 {
			g, err := ggufx.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			began = began || bitcos.IsCompanion(g.Tensors[0].Name)
			g.Close()
		}
	}
	if rep.OutputBytes != size || rep.Output != rep.Shards[0] {
		t.Errorf("report: output %s, %d bytes; the shards are %d bytes", rep.Output, rep.OutputBytes, size)
	}
	if familyCut && !began {
		t.Fatal("no shard begins inside a BITCOS family: the case is not exercised")
	}
	if len(want) == 1 {
		return
	}
	// Read back as a set: joined, the one file; verify, unpack, stats.
	joined, closeShards, err := ggufsplit.Join(rep.Shards, rep.Shards[0], ggufx.Open)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, joined.FileSize)
	_, err = joined.ReaderAt().ReadAt(b, 0)
	closeShards()
	if wb, _ := os.ReadFile(whole); err != nil || !bytes.Equal(b, wb) {
		t.Fatalf("joined shards differ from the one-file repack (%v)", err)
	}
	if opt.Ternarize || opt.Heads != nil {
		return // lossy: no unpack to the input
	}
	if v, err := Verify(in, rep.Shards[0]); err != nil || !v.OK() {
		t.Fatalf("verify: %v %+v", err, v)
	}
	back := filepath.Join(t.TempDir(), "back.gguf")
	if err := Unpack(rep.Shards[0], back, false); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(in)
	if b, _ := os.ReadFile(back); !bytes.Equal(a, b) {
		t.Fatal("unpack of the shards is not byte-identical to the original")
	}
	if _, err := Stats(rep.Shards[0], false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(in, rep.Shards[1]); err == nil {
		t.Fatal("a later shard accepted as the set")
	}
}

// TestShardedOutputLeavesNothingOnFailure: when the data pass disagrees with
// the plan (here a planned sign stream is made one byte longer than the
// encoding's, for the first family or one in a later shard, after earlier
// shards are complete) the repack fails, says so, and leaves no shard and no
// temporary; so does a split llama-gguf-split refuses.
func TestShardedOutputLeavesNothingOnFailure(t *testing.T) {
	defer atomicfile.UseNamedTemporaries()()
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 11))
	for _, c := range []struct {
		name    string
		nth     int // the BITCOS decision to spoil, counted from the last; -1: none
		split   SplitOptions
		wantErr string
	}{
		{"first family", 1 << 20, SplitOptions{MaxTensors: 5}, "planned"},
		{"last family", 0, SplitOptions{MaxTensors: 5}, "planned"},
		{"one shard", 0, SplitOptions{MaxTensors: 1 << 20}, "planned"},
		{"empty first shard", -1, SplitOptions{MaxBytes: 1000}, "empty first shard"},
	} {
		t.Run(c.name, func(t *testing.T) {
			afterPlan = func(plan []Decision) {
				var bitcos []int
				for i, d := range plan {
					if d.Layout == LayoutBitcos {
						bitcos = append(bitcos, i)
					}
				}
				if c.nth >= 0 {
					i := bitcos[max(0, len(bitcos)-1-c.nth)]
					plan[i].signBytes++
				}
			}
			defer func() { afterPlan = nil }()
			dir := t.TempDir()
			_, err := Repack(in, Options{Output: filepath.Join(dir, "m.gguf"), Split: c.split})
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("repack: %v, want an error saying %q", err, c.wantErr)
			}
			t.Log(err)
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				var names []string
				for _, e := range ents {
					names = append(names, e.Name())
				}
				t.Fatalf("left behind: %v", names)
			}
		})
	}
}
