package format

import (
	"bytes"
	"errors"
	"testing"
)

// fuzzStock decodes arbitrary bytes as codec c with a small shape: it must
// never panic; on success (or a NotTernaryError, whose planes are filled
// too), encoding and decoding again must give the same planes and scales.
// data is tried as is (usually the wrong length) and resized to the shape.
func fuzzStock(t *testing.T, c Codec, data []byte, kSel, rowSel uint8) {
	k := int(kSel) * 32 // multiples of 32 up to 8160, most not block multiples
	if kSel == 255 {
		k = -256
	}
	rows := int(rowSel % 6)
	var p Planes
	var s Scales
	_ = c.Decode(data, k, rows, &p, &s)
	if !c.Supports(k) {
		return
	}
	n := c.TensorBytes(k, rows)
	src := make([]byte, n)
	for i := 0; i < n && len(data) > 0; i += len(data) {
		copy(src[i:], data)
	}
	err := c.Decode(src, k, rows, &p, &s)
	var nt *NotTernaryError
	if err != nil && !errors.As(err, &nt) {
		t.Fatalf("%s %dx%d: %v", c.Name(), rows, k, err)
	}
	for i := range p.Neg {
		if p.Neg[i]&^p.Present[i] != 0 {
			t.Fatalf("word %d: Neg outside Present", i)
		}
	}
	out := make([]byte, n)
	if err := c.Encode(&p, &s, out); err != nil {
		t.Fatalf("re-encode: %v", err)
	}
	var q Planes
	var s2 Scales
	if err := c.Decode(out, k, rows, &q, &s2); err != nil {
		t.Fatalf("decode of own output: %v", err)
	}
	samePlanes(t, &p, &q)
	sameScales(t, &s, &s2)
	if err == nil && nt == nil && c != TQ1_0 && !bytes.Equal(out, src) {
		// 2-bit layouts without code 3 have one encoding per value.
		t.Fatalf("%s: Encode(Decode(x)) != x", c.Name())
	}
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte{}, uint8(8), uint8(1))
	f.Add([]byte{0x55, 0xaa, 0x00, 0xff}, uint8(8), uint8(2))
	f.Add(bytes.Repeat([]byte{0x12, 0x34, 0x56}, 100), uint8(16), uint8(3))
	f.Add([]byte{0xff}, uint8(2), uint8(5))
	f.Add([]byte{128, 127, 186, 67}, uint8(4), uint8(1))
	f.Add([]byte{1, 2, 3}, uint8(255), uint8(1))
}

func FuzzDecodeTQ2_0(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, k, rows uint8) { fuzzStock(t, TQ2_0, data, k, rows) })
}

func FuzzDecodeTQ1_0(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, k, rows uint8) { fuzzStock(t, TQ1_0, data, k, rows) })
}

func FuzzDecodeQ2_0(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, k, rows uint8) { fuzzStock(t, Q2_0, data, k, rows) })
}

func FuzzDecodeI2S(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, k, rows uint8) { fuzzStock(t, I2S, data, k, rows) })
}
