package repack_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/card"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// The fuzz targets of the BITCOS side feed damaged repacks to every verb
// through its library entry point: verify, stats, unpack and card. None may
// panic or leave a file behind, and every success must be true: when verify
// accepts a file, unpack of it is the original byte for byte.

// fuzzModel is one source type's micro model and its repack.
type fuzzModel struct {
	orig, packed string
	origBytes    []byte
	packedBytes  []byte
}

var (
	fuzzOnce   sync.Once
	fuzzModels []fuzzModel
	fuzzDir    string
	fuzzErr    error
)

// models builds, once per process, a tiny model of each source type (one
// layer, ternary or small head) and its repack, in a scratch directory on
// tmpfs where there is one (the verbs fsync their outputs).
func models(t testing.TB) []fuzzModel {
	fuzzOnce.Do(func() {
		base := ""
		if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
			base = "/dev/shm"
		}
		removeStaleFuzzDirs(base)
		fuzzDir = filepath.Join(cmp.Or(base, os.TempDir()), fmt.Sprintf("gguf-bitcos-fuzz-%d", os.Getpid()))
		if fuzzErr = os.MkdirAll(fuzzDir, 0o700); fuzzErr != nil {
			return
		}
		for n, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0, ggufx.TypeI2_S} {
			s := modelgen.Spec{Arch: "bitnet", NEmbd: 256, NFF: 256, NLayer: 1, NHead: 2, NHeadKV: 1, NVocab: 300,
				Type: typ, HeadType: typ, Seed: uint64(40 + n), ZMin: 0.35, ZMax: 0.52}
			if typ == ggufx.TypeTQ1_0 {
				s.ZMin, s.ZMax = 0.5, 0.6 // at K = 256 BITCOS beats TQ1_0 only above z ≈ 0.45
			}
			if typ == ggufx.TypeI2_S {
				s.Arch = "bitnet-b1.58"
			}
			m := fuzzModel{orig: filepath.Join(fuzzDir, fmt.Sprintf("m%d.gguf", n)), packed: filepath.Join(fuzzDir, fmt.Sprintf("m%d.bitcos.gguf", n))}
			if fuzzErr = modelgen.Write(m.orig, s); fuzzErr != nil {
				return
			}
			if rep, err := repack.Repack(m.orig, repack.Options{Output: m.packed, Workers: 1}); err != nil || rep.Converted == 0 {
				fuzzErr = fmt.Errorf("%s: no tensor converts (%v): the fuzz model needs BITCOS tensors", m.orig, err)
				return
			}
			m.origBytes, _ = os.ReadFile(m.orig)
			m.packedBytes, _ = os.ReadFile(m.packed)
			fuzzModels = append(fuzzModels, m)
		}
	})
	if fuzzErr != nil {
		t.Fatal(fuzzErr)
	}
	return fuzzModels
}

// checkVerbs runs every verb on the damaged file data (a repack of m) and
// checks what their answers claim.
func checkVerbs(t *testing.T, m fuzzModel, data []byte) {
	dir, err := os.MkdirTemp(fuzzDir, "x")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v, verr := repack.Verify(m.orig, p)
	repack.Stats(p, false, nil)
	back := filepath.Join(dir, "back.gguf")
	uerr := repack.Unpack(p, back, false)
	cardDir := filepath.Join(dir, "card")
	_, cerr := card.Write(card.Options{Model: p, Dir: cardDir})
	if verr == nil && v.OK() {
		if uerr != nil {
			t.Fatalf("verify accepted a file unpack refuses: %v", uerr)
		}
		if b, _ := os.ReadFile(back); !bytes.Equal(b, m.origBytes) {
			t.Fatal("verify accepted a file whose unpack is not the original")
		}
		if v.RoundTrip != repack.RoundTripIdentical {
			t.Fatalf("verify accepted with round trip %q", v.RoundTrip)
		}
	}
	if uerr != nil {
		if _, err := os.Stat(back); err == nil {
			t.Fatalf("unpack failed (%v) but left its output", uerr)
		}
	}
	if cerr != nil {
		if _, err := os.Stat(cardDir); err == nil {
			t.Fatalf("card failed (%v) but left its directory", cerr)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != "bad.gguf" && n != "back.gguf" && n != "card" {
			t.Fatalf("left behind: %s", n)
		}
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, data) {
		t.Fatal("an input was modified")
	}
}

// FuzzBitcosBytes flips bytes of a repack anywhere (header, KVs, tensor
// infos, bitmap, signs, row index, scales) and may cut it short.
func FuzzBitcosBytes(f *testing.F) {
	ms := models(f)
	for fx := range ms {
		f.Add(uint8(fx), []byte{}, uint16(0))
		f.Add(uint8(fx), []byte{0x10, 0, 0, 0, 0x01}, uint16(0))
		f.Add(uint8(fx), []byte{0xf0, 0xff, 0, 0, 0x80, 0x00, 0x04, 0, 0, 0x02}, uint16(0))
		f.Add(uint8(fx), []byte{}, uint16(40000))
	}
	f.Fuzz(func(t *testing.T, fx uint8, edits []byte, cut uint16) {
		m := ms[int(fx)%len(ms)]
		data := bytes.Clone(m.packedBytes)
		for len(edits) >= 5 {
			off := int(binary.LittleEndian.Uint32(edits)) % len(data)
			data[off] ^= edits[4]
			edits = edits[5:]
		}
		if cut > 0 {
			data = data[:len(data)*int(cut)/65536]
		}
		checkVerbs(t, m, data)
	})
}

// FuzzBitcosMetadata rewrites a repack's header consistently (a valid GGUF
// file) with one bitcos.* KV given another type and value, and one tensor
// info changed: the damage a tool that edits metadata does.
func FuzzBitcosMetadata(f *testing.F) {
	ms := models(f)
	for fx := range ms {
		f.Add(uint8(fx), uint8(0), uint8(ggufx.ValueUint32), []byte{7, 0, 0, 0}, uint8(0), uint8(0), uint32(0))
		f.Add(uint8(fx), uint8(3), uint8(ggufx.ValueFloat32), []byte{0, 0, 0xc0, 0x7f}, uint8(0), uint8(0), uint32(0))
		f.Add(uint8(fx), uint8(1), uint8(ggufx.ValueString), []byte{5, 0, 0, 0, 0, 0, 0, 0, 't', 'q', '1', '_', '0'}, uint8(0), uint8(0), uint32(0))
		f.Add(uint8(fx), uint8(255), uint8(0), []byte{}, uint8(5), uint8(2), uint32(512))
		f.Add(uint8(fx), uint8(255), uint8(0), []byte{}, uint8(3), uint8(4), uint32(0))
	}
	f.Fuzz(func(t *testing.T, fx, kvSel, typ uint8, raw []byte, tensorSel, field uint8, val uint32) {
		m := ms[int(fx)%len(ms)]
		data, err := corrupt.Rewrite(m.packedBytes, func(h *ggufx.Header) {
			var keys []int
			for i, kv := range h.KVs {
				if strings.HasPrefix(kv.Key, bitcos.KeyPrefix) {
					keys = append(keys, i)
				}
			}
			if kvSel != 255 && len(keys) > 0 {
				i := keys[int(kvSel)%len(keys)]
				h.KVs[i] = ggufx.KV{Key: h.KVs[i].Key, Type: ggufx.ValueType(typ % 13), Raw: raw}
			}
			ti := &h.Tensors[int(tensorSel)%len(h.Tensors)]
			switch field % 6 {
			case 1:
				ti.Type = ggufx.GGMLType(val % 100)
			case 2:
				ti.Dims = append([]uint64(nil), ti.Dims...)
				ti.Dims[0] = uint64(val % 70000)
			case 3:
				ti.Dims = append([]uint64(nil), ti.Dims...)
				ti.Dims[len(ti.Dims)-1] = uint64(val % 70000)
			case 4:
				ti.Name = strings.TrimSuffix(ti.Name, ".weight") + []string{bitcos.SuffixSigns, bitcos.SuffixRows, bitcos.SuffixScales}[val%3]
			case 5:
				ti.Dims = append(append([]uint64(nil), ti.Dims...), uint64(val%4+1))
			}
		})
		if err != nil {
			return // not a header a GGUF writer can write: the byte target covers those
		}
		checkVerbs(t, m, data)
	})
}

// TestFuzzSeedsPass runs the fuzz seeds' property once more as a plain
// test, and checks the models themselves verify (so the targets start from
// good files).
func TestFuzzSeedsPass(t *testing.T) {
	for _, m := range models(t) {
		v, err := repack.Verify(m.orig, m.packed)
		if err != nil || !v.OK() || v.RoundTrip != repack.RoundTripIdentical {
			t.Fatalf("%s: %v %+v", m.orig, err, v)
		}
		checkVerbs(t, m, m.packedBytes)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fuzzDir != "" {
		os.RemoveAll(fuzzDir)
	}
	os.Exit(code)
}
