package format

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TestRegistryKeys: one codec per ggml type, found by that type and by no
// other, named as ggufx names it.
func TestRegistryKeys(t *testing.T) {
	seen := map[ggufx.GGMLType]bool{}
	for _, c := range StockCodecs() {
		if seen[c.Type()] {
			t.Errorf("%s: type %v registered twice", c.Name(), c.Type())
		}
		seen[c.Type()] = true
		if got := CodecFor(c.Type()); got != c {
			t.Errorf("CodecFor(%v) = %v, want %s", c.Type(), got, c.Name())
		}
		if !c.Type().Known() || !strings.EqualFold(c.Name(), c.Type().String()) {
			t.Errorf("%s declares type %v (%q in ggufx)", c.Name(), uint32(c.Type()), c.Type())
		}
	}
	for _, typ := range []ggufx.GGMLType{ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, ggufx.TypeQ2_0, ggufx.TypeI2_S} {
		if !seen[typ] {
			t.Errorf("%v is not registered", typ)
		}
	}
	for _, typ := range append(ggufx.KnownTypes(), 1000) {
		if !seen[typ] && CodecFor(typ) != nil {
			t.Errorf("CodecFor(%v) is not nil", typ)
		}
	}
}

// TestRegistrySizes: each codec's sizes are ggufx's sizes of its type, its
// declared scale group is what Decode reports, and a code span lies inside
// its block and holds 4 codes per byte in whole 16-byte steps (the counter
// reads 16 bytes at a time), beside the block's fp16 scale or before one f32
// per tensor.
func TestRegistrySizes(t *testing.T) {
	for _, c := range StockCodecs() {
		for _, k := range []int{128, 256, 768, 2560} {
			if !c.Supports(k) {
				continue
			}
			for _, rows := range []int{1, 3} {
				want, err := ggufx.TensorBytes(c.Type(), []uint64{uint64(k), uint64(rows)})
				if err != nil || uint64(c.TensorBytes(k, rows)) != want {
					t.Errorf("%s %dx%d: %d bytes, ggufx says %d (%v)", c.Name(), rows, k, c.TensorBytes(k, rows), want, err)
				}
				var p Planes
				var s Scales
				if err := c.Decode(make([]byte, c.TensorBytes(k, rows)), k, rows, &p, &s); err != nil || s.Group != c.ScaleGroup() {
					t.Errorf("%s: decoded scale group %d, declared %d (%v)", c.Name(), s.Group, c.ScaleGroup(), err)
				}
			}
		}
		if cc, ok := c.(codeCounter); ok {
			sp := cc.codeSpan()
			codes := sp.len%16 == 0 && sp.off >= 0 && sp.off+sp.len <= sp.blockBytes && sp.len*4 == sp.blockElems
			scale := sp.scaleOff == -1 && c.ScaleGroup() == 0 ||
				sp.scaleOff >= 0 && sp.scaleOff+2 <= sp.blockBytes && (sp.scaleOff+2 <= sp.off || sp.scaleOff >= sp.off+sp.len) && c.ScaleGroup() == sp.blockElems
			if !codes || !scale {
				t.Errorf("%s: code span %+v", c.Name(), sp)
			}
		}
	}
}

// TestRegistryRedundant checks what each codec declares about redundant
// bytes against its own Decode and Encode, on random tensors: a codec that
// says it is not redundant must give back every tensor it decodes byte for
// byte (repack skips the re-encode comparison for it), and one that says it
// is must show a tensor it does not give back (or the declaration costs
// stats its direct count for nothing). In the code spans of a 2-bit layout
// code 3 becomes 2, so that most tensors decode.
func TestRegistryRedundant(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const k, rows, trials = 1024, 2, 50
	for _, c := range StockCodecs() {
		decoded, differ := 0, 0
		for range trials {
			src := make([]byte, c.TensorBytes(k, rows))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			if cc, ok := c.(codeCounter); ok {
				clearCode3(src, cc.codeSpan())
			}
			var p Planes
			var s Scales
			if err := c.Decode(src, k, rows, &p, &s); errors.Is(err, ErrNotTernary) {
				continue
			} else if err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			decoded++
			out := make([]byte, len(src))
			if err := c.Encode(&p, &s, out); err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			if !bytes.Equal(out, src) {
				differ++
				if !c.Redundant() {
					i := firstDiff(out, src)
					t.Fatalf("%s declares no redundant bytes, but byte %d re-encodes %#02x as %#02x", c.Name(), i, src[i], out[i])
				}
			}
		}
		if decoded < trials/2 {
			t.Errorf("%s: only %d of %d random tensors decode (a 2-bit layout needs a codeSpan here)", c.Name(), decoded, trials)
		}
		if c.Redundant() && differ == 0 {
			t.Errorf("%s declares redundant bytes, but all %d random tensors re-encode to themselves", c.Name(), decoded)
		}
	}
}

// clearCode3 turns every code 3 inside the code spans of src into code 2.
func clearCode3(src []byte, sp codeSpan) {
	for b := 0; b+sp.blockBytes <= len(src); b += sp.blockBytes {
		for i := b + sp.off; i < b+sp.off+sp.len; i++ {
			src[i] &^= src[i] & (src[i] >> 1) & 0x55
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
