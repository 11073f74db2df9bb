package repack

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange/httprangetest"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

var fastHTTP = httprange.Options{Backoff: time.Millisecond}

// statsJSON is a report without what depends on where the bytes came from.
func statsJSON(t *testing.T, fs *stats.FileStats) string {
	t.Helper()
	c := *fs
	c.File, c.Remote = "", nil
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func copyFile(t *testing.T, src, dst string) {
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// remoteModels fills dir with the committed fixtures, a BITCOS repack and a
// split BITCOS repack, and returns the names stats is given.
func remoteModels(t *testing.T, dir string) []string {
	var names []string
	for _, fx := range modelgen.Fixtures() {
		copyFile(t, filepath.Join("..", "testdata", fx.File), filepath.Join(dir, fx.File))
		names = append(names, fx.File)
	}
	if _, err := Repack(filepath.Join(dir, "tiny-tq2_0.gguf"), Options{Output: filepath.Join(dir, "b.gguf")}); err != nil {
		t.Fatal(err)
	}
	rep, err := Repack(filepath.Join(dir, "tiny-tq1_0.gguf"), Options{Output: filepath.Join(dir, "s.gguf"), Split: SplitOptions{MaxTensors: 6}})
	if err != nil || len(rep.Shards) < 2 {
		t.Fatalf("split repack: %v, %d shards", err, len(rep.Shards))
	}
	return append(names, "b.gguf", filepath.Base(rep.Shards[0]))
}

// TestStatsOverHTTP: stats of a URL equals stats of the file, byte for
// byte of the report, on a server that cuts every response after a few KiB
// too.
func TestStatsOverHTTP(t *testing.T) {
	dir := t.TempDir()
	names := remoteModels(t, dir)
	for _, cut := range []int64{0, 4 << 10} {
		srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: cut})
		for _, name := range names {
			local, err := Stats(filepath.Join(dir, name), false, nil)
			if err != nil {
				t.Fatal(err)
			}
			remote, err := StatsWith(srv.File(name), StatsOptions{HTTP: fastHTTP})
			if err != nil {
				t.Fatalf("%s over HTTP (cut %d): %v", name, cut, err)
			}
			if a, b := statsJSON(t, local), statsJSON(t, remote); a != b {
				t.Fatalf("%s (cut %d): remote report differs:\n%s\n%s", name, cut, a, b)
			}
			r := remote.Remote
			if r == nil || r.BytesFetched == 0 || (cut > 0) != (r.Resumes > 0) {
				t.Fatalf("%s (cut %d): traffic %+v", name, cut, r)
			}
			// Exact mode reads every tensor once, the header with some
			// read-ahead: never more than twice the file(s).
			if r.FetchedShare > 2 {
				t.Errorf("%s: fetched %.2fx the file", name, r.FetchedShare)
			}
		}
	}
}

// checkCoverage counts the tensors whose exact z lies in the sampled
// interval, and checks the total's.
func checkCoverage(t *testing.T, name string, exact, sampled *stats.FileStats) (in, all int) {
	t.Helper()
	// A tensor exact mode keeps for a code 3 can look ternary to a sample
	// that missed the code: compare by name.
	byName := map[string]stats.TensorStats{}
	for _, s := range sampled.Tensors {
		byName[s.Name] = s
	}
	for _, e := range exact.Tensors {
		s, ok := byName[e.Name]
		if !ok || s.ZInterval == nil {
			t.Fatalf("%s: %s missing or without an interval when sampled", name, e.Name)
		}
		iv := s.ZInterval
		if iv.Method == "exact" && (iv.Low != e.Z || s.Z != e.Z) {
			t.Errorf("%s: %s read whole, z %v, want %v", name, e.Name, s.Z, e.Z)
		}
		all++
		if e.Z >= iv.Low && e.Z <= iv.High {
			in++
		} else {
			t.Logf("%s: %s z %.4f outside [%.4f, %.4f] (%s, %d of %d blocks)", name, e.Name, e.Z, iv.Low, iv.High, iv.Method, iv.Blocks, iv.Of)
		}
	}
	if len(sampled.Tensors) != len(exact.Tensors) {
		return in, all // the totals weigh different tensors
	}
	s := sampled.Sampled
	if s == nil || exact.Total.Z < s.ZLow || exact.Total.Z > s.ZHigh {
		t.Errorf("%s: total z %.4f outside the sampled interval %+v", name, exact.Total.Z, s)
	}
	return in, all
}

// TestSampledStats: sampled z covers the exact z, the same blocks are read
// locally and over HTTP, and a sample as large as the tensor is exact.
func TestSampledStats(t *testing.T) {
	dir := t.TempDir()
	names := remoteModels(t, dir)
	for _, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeI2_S, ggufx.TypeTQ1_0} {
		name := strings.ToLower(typ.String()) + "-wide.gguf"
		if err := modelgen.Write(filepath.Join(dir, name), wideSpec(typ, 5)); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: 1000})
	in, all := 0, 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		exact, err := Stats(path, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		sampled, err := StatsWith(path, StatsOptions{Sample: 24, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		i, a := checkCoverage(t, name, exact, sampled)
		in, all = in+i, all+a
		remote, err := StatsWith(srv.File(name), StatsOptions{Sample: 24, Seed: 3, HTTP: fastHTTP})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := statsJSON(t, sampled), statsJSON(t, remote); a != b {
			t.Fatalf("%s: sampled over HTTP differs from sampled locally", name)
		}
		if remote.Remote.BytesFetched >= exact.FileBytes {
			t.Errorf("%s: sampling fetched %d bytes of a %d-byte file", name, remote.Remote.BytesFetched, exact.FileBytes)
		}
		whole, err := StatsWith(path, StatsOptions{Sample: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := statsJSON(t, exact), statsJSON(t, whole); len(whole.Tensors) != len(exact.Tensors) {
			t.Fatalf("%s: every block sampled: %s\nexact: %s", name, b, a)
		}
		for j, ts := range whole.Tensors {
			if ts.Z != exact.Tensors[j].Z || ts.ZInterval.Method != "exact" || ts.ZInterval.High != ts.Z {
				t.Fatalf("%s: %s with every block sampled: %+v, want z %v", name, ts.Name, ts.ZInterval, exact.Tensors[j].Z)
			}
		}
	}
	// 95% intervals: over ~100 tensors a handful may miss.
	if in < all*85/100 {
		t.Errorf("sampled intervals cover the exact z of %d of %d tensors", in, all)
	}
	t.Logf("coverage %d of %d", in, all)
}

// TestSafetensorsMaster: a float master as a Hugging Face checkpoint (one
// file, or shards and an index; local, or over HTTP cut every 64 KiB) gives
// the tensor report of the same master as GGUF with --ternarize, and its z
// per tensor is that of the repack --ternarize output.
func TestSafetensorsMaster(t *testing.T) {
	for _, typ := range []ggufx.GGMLType{ggufx.TypeBF16, ggufx.TypeF16, ggufx.TypeF32} {
		t.Run(typ.String(), func(t *testing.T) {
			in := genModel(t, modelgen.Small(typ, 40))
			dir := t.TempDir()
			if _, err := modelgen.WriteSafetensors(in, filepath.Join(dir, "one.safetensors"), 1, true); err != nil {
				t.Fatal(err)
			}
			files, err := modelgen.WriteSafetensors(in, filepath.Join(dir, "model.safetensors"), 3, true)
			if err != nil || len(files) != 5 {
				t.Fatalf("%v: %v", files, err)
			}
			want, err := Stats(in, true, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.gguf")
			if _, err := Repack(in, Options{Output: out, Ternarize: true}); err != nil {
				t.Fatal(err)
			}
			repacked, err := Stats(out, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: 64 << 10})
			for _, name := range []string{
				filepath.Join(dir, "one.safetensors"), filepath.Join(dir, "model.safetensors.index.json"),
				srv.File("one.safetensors"), srv.File("model.safetensors.index.json"),
			} {
				got, err := StatsWith(name, StatsOptions{HTTP: fastHTTP})
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Tensors) != 14 || !reflect.DeepEqual(got.Tensors, want.Tensors) ||
					!reflect.DeepEqual(got.Total, want.Total) || !reflect.DeepEqual(got.Dead, want.Dead) {
					a, _ := json.Marshal(got.Tensors)
					b, _ := json.Marshal(want.Tensors)
					t.Fatalf("%s: tensors\n%s\nwant (GGUF --ternarize)\n%s", name, a, b)
				}
				for j, ts := range got.Tensors {
					if r := repacked.Tensors[j]; r.Name != ts.Name || r.Z != ts.Z {
						t.Fatalf("%s: %s z %v, repack --ternarize wrote %s at z %v", name, ts.Name, ts.Z, r.Name, r.Z)
					}
				}
				if got.Source == nil || got.Source.Format != "safetensors" || got.Model.Parameters != want.Model.Parameters ||
					got.Model.Architecture != want.Model.Architecture || got.Memory.KVCache != want.Memory.KVCache || got.Memory.KVCache == 0 {
					t.Fatalf("%s: source %+v, %d parameters (want %d)", name, got.Source, got.Model.Parameters, want.Model.Parameters)
				}
				if httprange.IsURL(name) && (got.Remote == nil || got.Remote.Resumes == 0) {
					t.Fatalf("%s: traffic %+v", name, got.Remote)
				}
				sampled, err := StatsWith(name, StatsOptions{Sample: 16, HTTP: fastHTTP})
				if err != nil {
					t.Fatal(err)
				}
				checkCoverage(t, name, want, sampled)
				for _, ts := range sampled.Tensors {
					if m := ts.ZInterval.Method; m != "jackknife" && m != "exact" {
						t.Fatalf("%s: %s sampled by %s", name, ts.Name, m)
					}
				}
			}
		})
	}
}

// A damaged checkpoint is refused with the file and tensor named.
func TestSafetensorsErrors(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeBF16, 41))
	dir := t.TempDir()
	if _, err := modelgen.WriteSafetensors(in, filepath.Join(dir, "model.safetensors"), 2, true); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "model.safetensors.index.json")
	orig, _ := os.ReadFile(index)
	for _, c := range []struct {
		name, from, to, want string
	}{
		{"missing shard", "model-00002-of-00002", "model-00003-of-00003", "no such file"},
		{"wrong shard", `"model.layers.1.mlp.up_proj.weight": "model-00002-of-00002`, `"model.layers.1.mlp.up_proj.weight": "model-00001-of-00002`, `"model.layers.1.mlp.up_proj.weight" is not listed for this shard`},
		{"escape", "model-00002-of-00002", "../model-00002-of-00002", "plain file name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := string(orig)
			if !strings.Contains(s, c.from) {
				t.Fatalf("the index has no %q", c.from)
			}
			if err := os.WriteFile(index, []byte(strings.ReplaceAll(s, c.from, c.to)), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := StatsWith(index, StatsOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
