package repack

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange/httprangetest"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// gaussianMaster writes an F32 checkpoint of four projections whose rows
// have log-normally spread scales, so that blocks of one tensor differ in
// zero density (as trained weights do) and z depends on the estimated
// absmean scale: the case the jackknife interval is for.
func gaussianMaster(t *testing.T, path string) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k, rows = 512, 128
	var ts []safetensors.Data
	for l := range 4 {
		b := make([]byte, 0, 4*k*rows)
		for range rows {
			sd := math.Exp(0.4 * rng.NormFloat64())
			for range k {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(sd*rng.NormFloat64())))
			}
		}
		ts = append(ts, safetensors.Data{Name: fmt.Sprintf("model.layers.%d.mlp.up_proj.weight", l), DType: "F32", Shape: []uint64{rows, k}, Bytes: b})
	}
	if err := safetensors.WriteFile(path, ts, nil); err != nil {
		t.Fatal(err)
	}
}

// TestIntervalCoverage: over 40 seeds the sampled 95% intervals of a
// float master cover the exact z about 95% of the time. The Wilson interval
// over the sampled weights alone, which treats correlated weights as
// independent, covers much less: this is why blocks are the unit.
func TestIntervalCoverage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.safetensors")
	gaussianMaster(t, path)
	exact, err := StatsWith(path, StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// No config.json beside it, locally or over HTTP: no architecture.
	srv := httprangetest.Serve(t, filepath.Dir(path), httprangetest.Options{})
	remote, err := StatsWith(srv.File("g.safetensors"), StatsOptions{HTTP: fastHTTP})
	if err != nil || exact.Model.Architecture != "" || remote.Model.Architecture != "" || !reflect.DeepEqual(remote.Tensors, exact.Tensors) {
		t.Fatalf("without config.json: %v, architecture %q", err, exact.Model.Architecture)
	}
	in, wil, all := 0, 0, 0
	for seed := range uint64(40) {
		s, err := StatsWith(path, StatsOptions{Sample: 64, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for j, ts := range s.Tensors {
			z, iv := exact.Tensors[j].Z, ts.ZInterval
			if iv.Method != "jackknife" {
				t.Fatalf("%s: %s", ts.Name, iv.Method)
			}
			all++
			if z >= iv.Low && z <= iv.High {
				in++
			}
			if lo, hi := stats.Wilson(ts.Z, float64(iv.Blocks*int64(iv.Unit))); z >= lo && z <= hi {
				wil++
			}
		}
	}
	t.Logf("jackknife intervals cover %d of %d, Wilson over weights %d", in, all, wil)
	if in < all*88/100 || in > all*995/1000 {
		t.Errorf("jackknife intervals cover %d of %d, want about 95%%", in, all)
	}
	if wil >= in {
		t.Errorf("Wilson over weights covers %d, the block interval %d: the data lacks the correlation this test needs", wil, in)
	}
}

// A code 3 in a sampled block keeps the tensor, as exact mode does (the
// q2_0 fixture has one in blk.0.attn_q; all but one of its blocks are drawn).
func TestSampledKeepsNonTernary(t *testing.T) {
	path := filepath.Join("..", "testdata", "tiny-q2_0.gguf")
	f, err := ggufx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := f.Tensor("blk.0.attn_q.weight")
	blocks := int(f.Tensors[i].Elements()) / 64
	f.Close()
	fs, err := StatsWith(path, StatsOptions{Sample: blocks - 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range fs.Kept {
		if k.Name == "blk.0.attn_q.weight" && strings.Contains(k.Reason, "not ternary") && strings.Contains(k.Reason, "sampled block") {
			return
		}
	}
	t.Fatalf("kept: %+v", fs.Kept)
}
