package repack

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// repacked generates a model of type typ, repacks it and returns both paths.
func repacked(t *testing.T, typ ggufx.GGMLType, seed uint64) (orig, out string) {
	t.Helper()
	orig = genModel(t, modelgen.Small(typ, seed))
	out = filepath.Join(filepath.Dir(orig), "model.bitcos.gguf")
	// Force: a micro TQ1_0 model may gain nothing, and the tests want a
	// BITCOS file whatever it holds.
	if _, err := Repack(orig, Options{Output: out, Force: true}); err != nil {
		t.Fatal(err)
	}
	return orig, out
}

// bitcosOrdinal is the position of weight name among the BITCOS tensors of
// h (its entry in bitcos.source_types).
func bitcosOrdinal(t *testing.T, h *ggufx.Header, name string) int {
	t.Helper()
	n := 0
	for _, ti := range h.Tensors {
		if ti.Name == name && ti.Type == ggufx.TypeBITCOS {
			return n
		}
		if ti.Type == ggufx.TypeBITCOS {
			n++
		}
	}
	t.Fatalf("%s is not a BITCOS tensor", name)
	return -1
}

func f32KV(key string, bits uint32) ggufx.KV {
	return ggufx.KVFloat32(key, math.Float32frombits(bits))
}

// TestBitcosMetadataIsValidated feeds every verb a repack whose bitcos.*
// metadata was damaged (the version key renamed or out of range, and the
// cases below): each must refuse with a message naming the file and the
// problem, or, where the file is
// consistent in itself but not with its original, verify must report the
// difference. No verb may accept a file whose unpack is not the original.
func TestBitcosMetadataIsValidated(t *testing.T) {
	orig, out := repacked(t, ggufx.TypeTQ2_0, 21)
	good, _ := os.ReadFile(out)
	const victim = "blk.1.attn_k.weight"
	cases := []struct {
		name string
		edit func(t *testing.T, h *ggufx.Header)
		// want is in every verb's error; diff (want == "") is in verify's
		// differences while stats and unpack accept the file.
		want, diff string
	}{
		{"version renamed", func(t *testing.T, h *ggufx.Header) { corrupt.RenameKV(h, bitcos.KeyVersion, "bitcos.versioX") }, "no bitcos.version", ""},
		{"version 0", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 0)) }, "version 0 is not supported", ""},
		{"version 3", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 3)) }, "version 3 is not supported", ""},
		{"version 7", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 7)) }, "version 7 is not supported", ""},
		{"version max", func(t *testing.T, h *ggufx.Header) {
			corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, math.MaxUint32))
		}, "version 4294967295 is not supported", ""},
		{"version a string", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString(bitcos.KeyVersion, "1")) }, "want uint32", ""},
		{"source type swapped", func(t *testing.T, h *ggufx.Header) {
			if err := corrupt.SetStringArrayItem(h, bitcos.KeySourceTypes, bitcosOrdinal(t, h, victim), "tq1_0"); err != nil {
				t.Fatal(err)
			}
		}, "", victim + `": bitcos.source_types says its source type is tq1_0, the original's is tq2_0`},
		{"source type bogus", func(t *testing.T, h *ggufx.Header) {
			corrupt.SetStringArrayItem(h, bitcos.KeySourceTypes, bitcosOrdinal(t, h, victim), "q9_9")
		}, victim + `": bitcos.source_types gives it source type "q9_9"`, ""},
		{"source type of another scale layout", func(t *testing.T, h *ggufx.Header) {
			corrupt.SetStringArrayItem(h, bitcos.KeySourceTypes, bitcosOrdinal(t, h, victim), "i2_s")
		}, victim + `": source type i2_s has one f32 scale per tensor`, ""},
		{"source types short", func(t *testing.T, h *ggufx.Header) {
			i := corrupt.KVIndex(h, bitcos.KeySourceTypes)
			items, _ := h.KVs[i].StringArray()
			h.KVs[i] = ggufx.KVStringArray(bitcos.KeySourceTypes, items[1:])
		}, "source types for", ""},
		{"source types missing", func(t *testing.T, h *ggufx.Header) { corrupt.DeleteKV(h, bitcos.KeySourceTypes) }, "lists 0 source types", ""},
		{"source type KV bogus", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString(bitcos.KeySourceType, "f16")) }, "bitcos.source_type", ""},
		{"z quiet NaN", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, f32KV(bitcos.KeyZeroDensity, 0x7fc00000)) }, "bitcos.zero_density\": is NaN", ""},
		{"z signalling NaN", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, f32KV(bitcos.KeyZeroDensity, 0x7f800001)) }, "is NaN", ""},
		{"z negative NaN", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, f32KV(bitcos.KeyZeroDensity, 0xffc00000)) }, "is NaN", ""},
		{"z NaN payload", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, f32KV(bitcos.KeyZeroDensity, 0x7fffffff)) }, "is NaN", ""},
		{"z infinite", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, f32KV(bitcos.KeyZeroDensity, 0x7f800000)) }, "want a number in [0, 1]", ""},
		{"z above 1", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, 1.5)) }, "want a number in [0, 1]", ""},
		{"z wrong", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat32(bitcos.KeyZeroDensity, 0.25)) }, "", "bitcos.zero_density is 0.25, the BITCOS tensors' data gives"},
		{"z a float64", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVFloat64(bitcos.KeyZeroDensity, 0.4)) }, "want float32", ""},
		{"unknown bitcos key", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32("bitcos.future", 1)) }, `"bitcos.future": is not a key of BITCOS layout version 2`, ""},
		{"i2s tail for a TQ2_0 tensor", func(t *testing.T, h *ggufx.Header) {
			corrupt.SetKV(h, ggufx.KVUint8Array(bitcos.KeyI2STail+victim, make([]byte, 28)))
		}, "names no BITCOS tensor repacked from I2_S", ""},
		{"source file type dropped", func(t *testing.T, h *ggufx.Header) { corrupt.DeleteKV(h, bitcos.KeySourceFileType) }, `"general.file_type": is 96 without bitcos.source_file_type`, ""},
		{"file type not BITCOS", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyFileType, 37)) }, `"general.file_type": is 37, want 96`, ""},
		{"source file type a string", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString(bitcos.KeySourceFileType, "37")) }, "want an integer", ""},
		{"source file type on layout 1", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 1)) }, `"bitcos.source_file_type": is not a key of BITCOS layout version 1`, ""},
		{"source file type lies", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeySourceFileType, 36)) }, "", `KV "general.file_type": value differs`},
		{"master type bogus", func(t *testing.T, h *ggufx.Header) { corrupt.SetKV(h, ggufx.KVString(bitcos.KeyMasterType, "q4_0")) }, "want F16, BF16 or F32", ""},
		{"companion orphaned", func(t *testing.T, h *ggufx.Header) {
			i := corrupt.TensorIndex(h, victim)
			h.Tensors[i].Name = "blk.1.attn_k.weigh"
		}, `"blk.1.attn_k.weigh" has no companion`, ""},
		{"companion without weight", func(t *testing.T, h *ggufx.Header) {
			i := corrupt.TensorIndex(h, victim)
			h.Tensors[i].Type, h.Tensors[i].Dims = ggufx.TypeI8, []uint64{h.Tensors[i].Dims[0] / 8 * h.Tensors[i].Dims[1]}
		}, "a BITCOS companion without its BITCOS weight", ""},
		{"version on a file with no BITCOS data", func(t *testing.T, h *ggufx.Header) {
			var keep []ggufx.TensorInfo
			for _, ti := range h.Tensors {
				if ti.Type != ggufx.TypeBITCOS && !bitcos.IsCompanion(ti.Name) {
					keep = append(keep, ti)
				}
			}
			h.Tensors = keep
		}, "source types for 0 BITCOS tensors", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad, err := corrupt.Rewrite(good, func(h *ggufx.Header) { c.edit(t, h) })
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "bad.bitcos.gguf")
			os.WriteFile(p, bad, 0o644)
			v, verr := Verify(orig, p)
			_, serr := Stats(p, false, nil)
			back := filepath.Join(dir, "back.gguf")
			uerr := Unpack(p, back, false)
			if c.want != "" {
				for verb, err := range map[string]error{"verify": verr, "stats": serr, "unpack": uerr} {
					if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
						t.Errorf("%s: got %v, want an error naming %s and %q", verb, err, p, c.want)
					}
				}
				if _, err := os.Stat(back); err == nil {
					t.Error("unpack wrote an output for a refused file")
				}
				return
			}
			if verr != nil {
				t.Fatalf("verify: %v; want a difference with %q", verr, c.diff)
			}
			if v.OK() || !strings.Contains(strings.Join(v.Diffs, "\n"), c.diff) {
				t.Fatalf("verify: diffs %q; want a difference with %q", v.Diffs, c.diff)
			}
			// What verify refused must indeed not come back as the original
			// (but a lie in metadata that unpack drops: z).
			if uerr == nil && !strings.HasPrefix(c.diff, bitcos.KeyZeroDensity) {
				a, _ := os.ReadFile(orig)
				if b, _ := os.ReadFile(back); bytes.Equal(a, b) {
					t.Fatal("verify refused a file whose unpack is the original")
				}
			}
		})
	}
	assertNoTemps(t, filepath.Dir(out))
}

// TestVerifyProvesTheRoundTrip: a good repack verifies with the round trip
// "identical"; --fast skips it; a file consistent in itself whose unpack
// differs from the original in a way the decoded comparison cannot see is
// caught by the round trip alone.
func TestVerifyProvesTheRoundTrip(t *testing.T) {
	for _, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0, ggufx.TypeI2_S} {
		t.Run(typ.String(), func(t *testing.T) {
			orig, out := repacked(t, typ, 22)
			v, err := Verify(orig, out)
			if err != nil || !v.OK() || v.RoundTrip != RoundTripIdentical {
				t.Fatalf("verify: %v %+v", err, v)
			}
			if v, err := Verify(orig, out, VerifyOptions{Fast: true}); err != nil || !v.OK() || !strings.Contains(v.RoundTrip, "skipped") {
				t.Fatalf("verify --fast: %v %+v", err, v)
			}
		})
	}
	// The original's trailing bytes (not canonical): unpack restores every
	// KV and tensor, and says the layout is the canonical one.
	orig, _ := repacked(t, ggufx.TypeTQ2_0, 23)
	data, _ := os.ReadFile(orig)
	odd := filepath.Join(t.TempDir(), "odd.gguf")
	os.WriteFile(odd, append(data, 1, 2, 3), 0o644)
	out := filepath.Join(filepath.Dir(odd), "odd.bitcos.gguf")
	if _, err := Repack(odd, Options{Output: out}); err != nil {
		t.Fatal(err)
	}
	if v, err := Verify(odd, out); err != nil || !v.OK() || v.RoundTrip != RoundTripCanonical {
		t.Fatalf("verify of a non-canonical original: %v %+v", err, v)
	}
}

// TestRoundTripAloneCatchesASwappedSourceType: the round trip on its own
// (without verify's source-type check) sees that unpack of a file whose
// bitcos.source_types was changed would not give the original back, and
// names the tensor.
func TestRoundTripAloneCatchesASwappedSourceType(t *testing.T) {
	orig, out := repacked(t, ggufx.TypeTQ2_0, 24)
	good, _ := os.ReadFile(out)
	const victim = "blk.1.attn_k.weight"
	bad, err := corrupt.Rewrite(good, func(h *ggufx.Header) {
		corrupt.SetStringArrayItem(h, bitcos.KeySourceTypes, bitcosOrdinal(t, h, victim), "tq1_0")
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(p, bad, 0o644)
	a, doneA, err := openJoined(orig)
	if err != nil {
		t.Fatal(err)
	}
	defer doneA()
	defer a.Close()
	b, doneB, err := openJoined(p)
	if err != nil {
		t.Fatal(err)
	}
	defer doneB()
	defer b.Close()
	v := &VerifyResult{}
	if err := roundTrip(v, a, b); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(v.Diffs, "\n")
	if v.OK() || !strings.Contains(joined, "unpack would not give the original back") || !strings.Contains(joined, "in the header") {
		t.Fatalf("round trip: %q", joined)
	}
	// And it passes on the good file.
	g, doneG, err := openJoined(out)
	if err != nil {
		t.Fatal(err)
	}
	defer doneG()
	defer g.Close()
	v = &VerifyResult{}
	if err := roundTrip(v, a, g); err != nil || !v.OK() || v.RoundTrip != RoundTripIdentical {
		t.Fatalf("round trip of the good repack: %v %+v", err, v)
	}
}

// TestBadScalesAreKept: a NaN or infinite scale keeps that tensor in its
// source type, reported, instead of failing the repack;
// stats predicts the same decision and the exact output size; the repack
// verifies and round-trips.
func TestBadScalesAreKept(t *testing.T) {
	type scaleAt func(f *ggufx.File, i int) uint64 // byte offset of the first scale in tensor i
	blockScale := func(off uint64) scaleAt {
		return func(f *ggufx.File, i int) uint64 { return f.DataOffset + f.Tensors[i].Offset + off }
	}
	i2sScale := func(f *ggufx.File, i int) uint64 {
		t := f.Tensors[i]
		return f.DataOffset + t.Offset + t.Elements()/4
	}
	for _, c := range []struct {
		typ   ggufx.GGMLType
		at    scaleAt
		value []byte
		want  string
	}{
		{ggufx.TypeTQ2_0, blockScale(64), []byte{0x01, 0x7e}, "scale 0 is NaN (fp16 bits 0x7e01)"},
		{ggufx.TypeTQ2_0, blockScale(64), []byte{0x00, 0xfc}, "scale 0 is infinite"},
		{ggufx.TypeTQ1_0, blockScale(52), []byte{0x00, 0x7c}, "scale 0 is infinite"},
		{ggufx.TypeQ2_0, blockScale(0), []byte{0x00, 0x7e}, "scale 0 is NaN"},
		{ggufx.TypeI2_S, i2sScale, []byte{0x00, 0x00, 0xc0, 0x7f}, "per-tensor scale is NaN"},
	} {
		t.Run(fmt.Sprintf("%v/%x", c.typ, c.value), func(t *testing.T) {
			s := wideSpec(c.typ, 25)
			if c.typ == ggufx.TypeI2_S {
				s.Arch = "bitnet-b1.58"
			}
			in := genModel(t, s)
			f, err := ggufx.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			const victim = "blk.0.ffn_up.weight"
			i, _ := f.Tensor(victim)
			off := c.at(f, i)
			f.Close()
			data, _ := os.ReadFile(in)
			copy(data[off:], c.value)
			os.WriteFile(in, data, 0o644)

			st, err := Stats(in, false, nil)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out.gguf")
			rep, err := Repack(in, Options{Output: out})
			if err != nil {
				t.Fatalf("repack failed on one bad scale: %v", err)
			}
			var got Decision
			for _, d := range rep.Tensors {
				if d.Name == victim {
					got = d
				}
			}
			if got.Layout != LayoutKept || !strings.Contains(got.Reason, c.want) {
				t.Fatalf("%s: layout %s, reason %q; want kept with %q", victim, got.Layout, got.Reason, c.want)
			}
			var predicted stats.KeptTensor
			for _, k := range st.Kept {
				if k.Name == victim {
					predicted = k
				}
			}
			for _, ts := range st.Tensors {
				if ts.Name == victim {
					t.Errorf("stats analysed %s as %s", victim, ts.Layout)
				}
			}
			if predicted.Reason != got.Reason {
				t.Errorf("stats predicted %q, repack did %s %q", predicted.Reason, got.Layout, got.Reason)
			}
			if st.RepackBytes != rep.OutputBytes {
				t.Errorf("stats predicted %d bytes, repack wrote %d", st.RepackBytes, rep.OutputBytes)
			}
			if v, err := Verify(in, out); err != nil || !v.OK() || v.RoundTrip != RoundTripIdentical {
				t.Fatalf("verify: %v %+v", err, v)
			}
		})
	}
}

// TestBitcosBadScaleIsRefused: a NaN scale inside a BITCOS file (repack
// never writes one) is damage: every verb says which tensor.
func TestBitcosBadScaleIsRefused(t *testing.T) {
	orig, out := repacked(t, ggufx.TypeTQ2_0, 26)
	f, err := ggufx.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := f.Tensor("blk.0.attn_q.bitcos_scales")
	off := f.DataOffset + f.Tensors[i].Offset
	f.Close()
	data, _ := os.ReadFile(out)
	binary.LittleEndian.PutUint16(data[off:], 0x7e00)
	os.WriteFile(out, data, 0o644)
	_, verr := Verify(orig, out)
	_, serr := Stats(out, false, nil)
	uerr := Unpack(out, filepath.Join(t.TempDir(), "b.gguf"), false)
	for verb, err := range map[string]error{"verify": verr, "stats": serr, "unpack": uerr} {
		if err == nil || !strings.Contains(err.Error(), `"blk.0.attn_q.weight": scale 0 is NaN`) {
			t.Errorf("%s: %v", verb, err)
		}
	}
}

// TestIdentity: a repack names itself BITCOS in general.file_type and in its
// default file name, keeps the source's file type beside it, and unpack
// restores it; a layout 1 file (the source's general.file_type kept, no
// bitcos.source_file_type) is still read, verified and unpacked.
func TestIdentity(t *testing.T) {
	orig, out := repacked(t, ggufx.TypeTQ2_0, 27)
	f, err := ggufx.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	ft, _ := f.KV(bitcos.KeyFileType)
	src, ok := f.KV(bitcos.KeySourceFileType)
	f.Close()
	o, _ := ggufx.Open(orig)
	oft, _ := o.KV(bitcos.KeyFileType)
	o.Close()
	if v, _ := ft.AsUint64(); v != bitcos.FileTypeBITCOS || !ok || !bytes.Equal(src.Raw, oft.Raw) || src.Type != oft.Type {
		t.Fatalf("general.file_type %s, bitcos.source_file_type %s (source %s)", ft.ValueString(), src.ValueString(), oft.ValueString())
	}
	// Layout 1: version 1, the source's general.file_type, no source key.
	good, _ := os.ReadFile(out)
	v1, err := corrupt.Rewrite(good, func(h *ggufx.Header) {
		corrupt.SetKV(h, ggufx.KVUint32(bitcos.KeyVersion, 1))
		corrupt.SetKV(h, oft)
		corrupt.DeleteKV(h, bitcos.KeySourceFileType)
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "v1.gguf")
	os.WriteFile(p, v1, 0o644)
	if v, err := Verify(orig, p); err != nil || !v.OK() || v.RoundTrip != RoundTripIdentical {
		t.Fatalf("layout 1: %v %+v", err, v)
	}
	for in, want := range map[string]string{
		"m/model-tq2_0.gguf":        "m/model-BITCOS.gguf",
		"m/ggml-model-i2_s.gguf":    "m/ggml-model-BITCOS.gguf",
		"m/Model-TQ1_0-v2.gguf":     "m/Model-BITCOS-v2.gguf",
		"m/model.gguf":              "m/model-BITCOS.gguf",
		"q2_0.d/model.gguf":         "q2_0.d/model-BITCOS.gguf",
		"m/BitNet-2B.Q2_0.gguf":     "m/BitNet-2B.BITCOS.gguf",
		"m/model-BITCOS.gguf/x.bin": "m/model-BITCOS.gguf/x.bin-BITCOS.gguf",
	} {
		if got := DefaultOutput(in); got != want {
			t.Errorf("DefaultOutput(%q) = %q, want %q", in, got, want)
		}
	}
	if got := DefaultUnpackOutput("m/model-BITCOS.gguf"); got != "m/model.unpacked.gguf" {
		t.Errorf("DefaultUnpackOutput: %q", got)
	}
}

// TestProgressCoversTheWholeJob: each phase's progress never goes back and
// counts bytes of its own total (the data pass: the input's), the flush has
// no total, and "done" comes only when the output is complete.
func TestProgressCoversTheWholeJob(t *testing.T) {
	in := genModel(t, modelgen.Small(ggufx.TypeTQ2_0, 28))
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, split := range []bool{false, true} {
		var phases []string
		var last, total int64
		out := filepath.Join(t.TempDir(), "o.gguf")
		opt := Options{Output: out, Progress: func(phase string, done, tot int64) {
			if len(phases) == 0 || phases[len(phases)-1] != phase {
				if len(phases) > 0 && total > 0 && last != total {
					t.Fatalf("phase %s ended at %d of %d", phases[len(phases)-1], last, total)
				}
				phases = append(phases, phase)
				last, total = 0, tot
			}
			if done < last || tot != total || (tot >= 0 && done > tot) {
				t.Fatalf("%s: progress %d of %d after %d of %d", phase, done, tot, last, total)
			}
			switch {
			case phase == "repack" && (tot > st.Size() || tot < st.Size()*9/10):
				t.Fatalf("the data pass counts %d bytes of a %d-byte input", tot, st.Size())
			case phase == "flush" && tot != -1:
				t.Fatalf("the flush has a total: %d", tot)
			}
			if phase == "done" {
				if _, err := os.Stat(firstOutput(out, split)); err != nil {
					t.Fatalf("done before the output is named: %v", err)
				}
			}
			last = done
		}}
		if split {
			opt.Split.MaxTensors = 10
		}
		if _, err := Repack(in, opt); err != nil {
			t.Fatal(err)
		}
		want := []string{"repack", "flush", "done"}
		if split {
			want = []string{"plan", "repack", "flush", "done"}
		}
		if !slices.Equal(phases, want) {
			t.Fatalf("split %v: phases %v; want %v", split, phases, want)
		}
	}
}

// firstOutput is the first file of output out (one file, or its first shard).
func firstOutput(out string, split bool) string {
	if !split {
		return out
	}
	m, _ := filepath.Glob(strings.TrimSuffix(out, ".gguf") + "-00001-of-*.gguf")
	if len(m) == 0 {
		return out
	}
	return m[0]
}
