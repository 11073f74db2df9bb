package format

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// refDecodeTQ2_0 follows dequantize_row_tq2_0 (ggml-quants.c at the pin) loop
// for loop: it returns code-1 for every weight (2 for code 3) and the scales.
func refDecodeTQ2_0(src []byte, k, rows int) ([]int, []uint16) {
	nb := k * rows / 256
	var y []int
	var d []uint16
	for i := 0; i < nb; i++ {
		x := src[i*66 : i*66+66]
		qs := x[0:64]
		d = append(d, uint16(x[64])|uint16(x[65])<<8)
		for j := 0; j < 64; j += 32 {
			for l := 0; l < 4; l++ {
				for m := 0; m < 32; m++ {
					q := int(qs[j+m]>>(l*2)) & 3
					y = append(y, q-1)
				}
			}
		}
	}
	return y, d
}

// refPackTQ2_0 transliterates the packing loops of quantize_row_tq2_0_ref,
// with xi = value+1 in place of lroundf(x*id)+1.
func refPackTQ2_0(v []int8, d []uint16) []byte {
	nb := len(v) / 256
	out := make([]byte, nb*66)
	x := v
	for i := 0; i < nb; i++ {
		y := out[i*66 : i*66+66]
		for j := 0; j < 64; j += 32 {
			for m := 0; m < 32; m++ {
				var q uint8
				for n := 0; n < 4; n++ {
					xi := int(x[m+n*32]) + 1
					q += uint8(xi&3) << (2 * n)
				}
				y[j+m] = q
			}
			x = x[4*32:]
		}
		binary.LittleEndian.PutUint16(y[64:], d[i])
	}
	return out
}

// noCode3 turns every 2-bit field 3 of b into 2.
func noCode3(b []byte) {
	for i, c := range b {
		for sh := 0; sh < 8; sh += 2 {
			if c>>sh&3 == 3 {
				c &^= 1 << sh
			}
		}
		b[i] = c
	}
}

func TestTQ2_0HandBuilt(t *testing.T) {
	// Two rows of one block; 0x55 is four code-1 fields (all zero).
	src := bytes.Repeat([]byte{0x55}, 2*66)
	blk0, blk1 := src[:66], src[66:]
	blk0[0] = 0b10_01_00_10  // elements 0, 32, 64, 96: codes 2, 0, 1, 2
	blk0[31] = 0b00_00_00_00 // elements 31, 63, 95, 127: code 0
	blk0[33] = 0b01_10_01_01 // elements 129, 161, 193, 225: codes 1, 1, 2, 1
	blk0[64], blk0[65] = 0x00, 0x3c
	blk1[63] = 0b01_01_01_00 // elements 159, 191, 223, 255: codes 0, 1, 1, 1
	blk1[64], blk1[65] = 0x34, 0x12
	want := map[[2]int]int8{
		{0, 0}: 1, {0, 32}: -1, {0, 96}: 1,
		{0, 31}: -1, {0, 63}: -1, {0, 95}: -1, {0, 127}: -1,
		{0, 193}: 1,
		{1, 159}: -1,
	}
	var p Planes
	var s Scales
	if err := TQ2_0.Decode(src, 256, 2, &p, &s); err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		for j := range 256 {
			if got := p.Value(r, j); got != want[[2]int{r, j}] {
				t.Errorf("row %d elem %d = %d, want %d", r, j, got, want[[2]int{r, j}])
			}
		}
	}
	if s.Group != 256 || len(s.F16) != 2 || s.F16[0] != 0x3c00 || s.F16[1] != 0x1234 {
		t.Errorf("scales %+v", s)
	}
	// Code 3 at row 1, element 128+64+5 (byte 32+5, bits 5:4).
	src[66+37] = 0b01_11_01_01
	err := TQ2_0.Decode(src, 256, 2, &p, &s)
	checkNT(t, err, 1, 197)
}

func checkNT(t *testing.T, err error, row, elem int) {
	t.Helper()
	nt, ok := err.(*NotTernaryError)
	if !ok {
		t.Fatalf("want *NotTernaryError, got %v", err)
	}
	if nt.Row != row || nt.Elem != elem || nt.Code != 3 {
		t.Fatalf("NotTernaryError row %d elem %d code %d, want %d %d 3", nt.Row, nt.Elem, nt.Code, row, elem)
	}
}

func TestTQ2_0Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, shape := range [][2]int{{256, 1}, {512, 3}, {2560, 2}} {
		k, rows := shape[0], shape[1]
		for trial := range 20 {
			src := make([]byte, TQ2_0.TensorBytes(k, rows))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			if trial%2 == 0 {
				noCode3(src)
			} else if trial%4 == 1 {
				noCode3(src)
				src[rng.IntN(len(src))] |= 3 << (2 * rng.IntN(4)) // maybe hits a scale byte
			}
			var p Planes
			var s Scales
			err := TQ2_0.Decode(src, k, rows, &p, &s)
			ref, d := refDecodeTQ2_0(src, k, rows)
			checkAgainstRef(t, &p, err, ref, k, rows)
			sameScales(t, &s, &Scales{Group: 256, F16: d})
			if err == nil {
				out := make([]byte, len(src))
				if err := TQ2_0.Encode(&p, &s, out); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, src) {
					t.Fatal("Encode(Decode(x)) != x for code-3-free TQ2_0 bytes")
				}
			}
		}
	}
}

func TestTQ2_0MatchesQuantizeRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, z := range []float64{0, 0.3, 0.5, 0.9} {
		k, rows := 768, 3
		v := stockCodes(rng, k*rows, z)
		s := stockScales(rng, 256, k*rows/256)
		out := make([]byte, TQ2_0.TensorBytes(k, rows))
		if err := TQ2_0.Encode(stockPlanesOf(v, k, rows), s, out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, refPackTQ2_0(v, s.F16)) {
			t.Fatalf("z=%v: Encode differs from quantize_row_tq2_0_ref packing", z)
		}
	}
}

// TestTQ2_0FirstNotTernary: with several code 3s, the first in row-major
// order is reported.
func TestTQ2_0FirstNotTernary(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	k, rows := 512, 4
	for range 50 {
		v := stockCodes(rng, k*rows, 0.4)
		s := stockScales(rng, 256, k*rows/256)
		src := make([]byte, TQ2_0.TensorBytes(k, rows))
		if err := TQ2_0.Encode(stockPlanesOf(v, k, rows), s, src); err != nil {
			t.Fatal(err)
		}
		a, b := rng.IntN(k*rows), rng.IntN(k*rows)
		for _, f := range []int{a, b} {
			blk, e := f/256, f%256
			src[blk*66+e/128*32+e%32] |= 3 << (2 * (e % 128 / 32))
		}
		var p Planes
		var sc Scales
		first := min(a, b)
		checkNT(t, TQ2_0.Decode(src, k, rows, &p, &sc), first/k, first%k)
	}
}

func benchStock(b *testing.B, c Codec, decode bool) {
	const k, rows = 2560, 2048
	rng := rand.New(rand.NewPCG(1, 1))
	p := stockPlanesOf(stockCodes(rng, k*rows, 0.42), k, rows)
	s := &Scales{Group: c.ScaleGroup()}
	if g := c.ScaleGroup(); g > 0 {
		s.F16 = make([]uint16, k/g*rows)
	}
	buf := make([]byte, c.TensorBytes(k, rows))
	if err := c.Encode(p, s, buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for b.Loop() {
		var err error
		if decode {
			err = c.Decode(buf, k, rows, p, s)
		} else {
			err = c.Encode(p, s, buf)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTQ2_0(b *testing.B) { benchStock(b, TQ2_0, true) }
func BenchmarkEncodeTQ2_0(b *testing.B) { benchStock(b, TQ2_0, false) }
