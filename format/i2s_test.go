package format

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// refDecodeI2S reads the layout weight by weight as I2S's doc states it:
// flat index f -> byte (f/128)*32 + f%32, shift 6 - 2*((f%128)/32), code-1;
// then the f32 scale and 28 tail bytes.
func refDecodeI2S(src []byte, k, rows int) ([]int, uint32, []byte) {
	n := k * rows
	y := make([]int, n)
	for f := range n {
		c := src[f/128*32+f%32] >> (6 - 2*(f%128/32)) & 3
		y[f] = int(c) - 1
	}
	return y, binary.LittleEndian.Uint32(src[n/4:]), src[n/4+4 : n/4+32]
}

// refPackI2S transliterates the packing loop of BitNet's quantize_i2_s (x86,
// ACT_PARALLEL, QK_I2_S = 128), with q8 = value+1.
func refPackI2S(v []int8, scale uint32, tail []byte) []byte {
	n := len(v)
	dst := make([]byte, n/4+32)
	for i := 0; i < n/128; i++ {
		for j := 0; j < 128; j++ {
			groupIdx := j / 32
			groupPos := j % 32
			temp := uint8(int(v[i*128+j])+1) << (6 - 2*groupIdx)
			dst[i*32+groupPos] |= temp
		}
	}
	binary.LittleEndian.PutUint32(dst[n/4:], scale)
	copy(dst[n/4+4:], tail)
	return dst
}

func TestI2SHandBuilt(t *testing.T) {
	// Two rows of 128; 0x55 is four code-1 (zero) fields.
	src := bytes.Repeat([]byte{0x55}, 2*32+32)
	src[0] = 0b10_00_01_10  // flat 0, 32, 64, 96: codes 2, 0, 1, 2
	src[31] = 0b01_01_01_00 // flat 127: code 0 (bits 1:0 are the 4th group)
	src[32+5] = 0           // row 1, elements 5, 37, 69, 101: code 0
	copy(src[64:], []byte{0x00, 0x00, 0x80, 0x3f, 1, 2, 3})
	want := map[[2]int]int8{
		{0, 0}: 1, {0, 32}: -1, {0, 96}: 1, {0, 127}: -1,
		{1, 5}: -1, {1, 37}: -1, {1, 69}: -1, {1, 101}: -1,
	}
	var p Planes
	var s Scales
	if err := I2S.Decode(src, 128, 2, &p, &s); err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		for j := range 128 {
			if got := p.Value(r, j); got != want[[2]int{r, j}] {
				t.Errorf("row %d elem %d = %d, want %d", r, j, got, want[[2]int{r, j}])
			}
		}
	}
	wantTail := append([]byte{1, 2, 3}, bytes.Repeat([]byte{0x55}, 25)...)
	if s.Group != 0 || s.F32 != 0x3f800000 || len(s.F16) != 0 || !bytes.Equal(s.Tail, wantTail) {
		t.Errorf("scales %+v", s)
	}
	out := make([]byte, len(src))
	if err := I2S.Encode(&p, &s, out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, src) {
		t.Errorf("re-encode differs")
	}
	// A nil tail is written as zeros.
	s.Tail = nil
	if err := I2S.Encode(&p, &s, out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out[68:], make([]byte, 28)) || !bytes.Equal(out[:68], src[:68]) {
		t.Errorf("nil tail: %x", out)
	}
	// Code 3 at row 1 element 64+9 (byte 32+9, bits 3:2) and row 1 elem 100.
	src[32+9] = 0b01_01_11_01
	src[32+4] = 0b01_01_01_11
	checkNT(t, I2S.Decode(src, 128, 2, &p, &s), 1, 73)
	// The flat layout does not restart at rows: one row of 256 reads the same.
	checkNT(t, I2S.Decode(src, 256, 1, &p, &s), 0, 128+73)
}

func TestI2SReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, shape := range [][2]int{{128, 1}, {384, 3}, {2560, 2}} {
		k, rows := shape[0], shape[1]
		for trial := range 20 {
			src := make([]byte, I2S.TensorBytes(k, rows))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			if trial%2 == 0 {
				noCode3(src)
			}
			var p Planes
			var s Scales
			err := I2S.Decode(src, k, rows, &p, &s)
			ref, f32, tail := refDecodeI2S(src, k, rows)
			checkAgainstRef(t, &p, err, ref, k, rows)
			sameScales(t, &s, &Scales{F32: f32, Tail: tail})
			if err == nil {
				out := make([]byte, len(src))
				if err := I2S.Encode(&p, &s, out); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, src) {
					t.Fatal("Encode(Decode(x)) != x for code-3-free I2_S bytes")
				}
			}
		}
	}
}

func TestI2SMatchesQuantizeRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, z := range []float64{0, 0.3, 0.5, 0.9} {
		k, rows := 640, 3
		v := stockCodes(rng, k*rows, z)
		s := &Scales{F32: rng.Uint32(), Tail: make([]byte, 28)}
		s.Tail[27] = 0xee
		out := make([]byte, I2S.TensorBytes(k, rows))
		if err := I2S.Encode(stockPlanesOf(v, k, rows), s, out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, refPackI2S(v, s.F32, s.Tail)) {
			t.Fatalf("z=%v: Encode differs from quantize_i2_s packing", z)
		}
	}
}

func BenchmarkDecodeI2S(b *testing.B) { benchStock(b, I2S, true) }
func BenchmarkEncodeI2S(b *testing.B) { benchStock(b, I2S, false) }
