package format

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// refDecodeQ2_0 follows dequantize_row_q2_0 (ggml-quants.c at the pin) loop
// for loop, over the 18-byte block_q2_0 {ggml_half d; uint8_t qs[16]}.
func refDecodeQ2_0(src []byte, k, rows int) ([]int, []uint16) {
	const qk = 64
	nb := k * rows / qk
	var y []int
	var d []uint16
	for i := 0; i < nb; i++ {
		x := src[i*18 : i*18+18]
		d = append(d, uint16(x[0])|uint16(x[1])<<8)
		qs := x[2:18]
		for j := 0; j < qk; j++ {
			byteIndex := j / 4
			bitOffset := (j % 4) * 2
			q := (qs[byteIndex] >> bitOffset) & 0x03
			y = append(y, int(q)-1)
		}
	}
	return y, d
}

// refPackQ2_0 transliterates the packing part of quantize_row_q2_0_ref, with
// q = value+1 in place of roundf(w*id)+1.
func refPackQ2_0(v []int8, d []uint16) []byte {
	const qk = 64
	nb := len(v) / qk
	out := make([]byte, nb*18)
	for i := 0; i < nb; i++ {
		y := out[i*18 : i*18+18]
		binary.LittleEndian.PutUint16(y[0:2], d[i])
		qs := y[2:18]
		for j := 0; j < qk/4; j++ {
			qs[j] = 0
		}
		for j := 0; j < qk; j++ {
			q := int(v[i*qk+j]) + 1
			qs[j/4] |= uint8(q) << ((j % 4) * 2)
		}
	}
	return out
}

func TestQ2_0HandBuilt(t *testing.T) {
	// Three blocks: rows of 64, 3 rows; 0x55 is four code-1 (zero) fields.
	src := bytes.Repeat([]byte{0x55}, 3*18)
	src[0], src[1] = 0x00, 0x3c
	src[2] = 0b10_01_00_10    // elements 0..3: codes 2, 0, 1, 2
	src[2+15] = 0b00_10_01_01 // elements 60..63: codes 1, 1, 2, 0
	src[18], src[19] = 0x34, 0x12
	src[36+2+8] = 0b01_01_00_01 // row 2, elements 32..35: codes 1, 0, 1, 1
	want := map[[2]int]int8{
		{0, 0}: 1, {0, 1}: -1, {0, 3}: 1,
		{0, 62}: 1, {0, 63}: -1,
		{2, 33}: -1,
	}
	var p Planes
	var s Scales
	if err := Q2_0.Decode(src, 64, 3, &p, &s); err != nil {
		t.Fatal(err)
	}
	for r := range 3 {
		for j := range 64 {
			if got := p.Value(r, j); got != want[[2]int{r, j}] {
				t.Errorf("row %d elem %d = %d, want %d", r, j, got, want[[2]int{r, j}])
			}
		}
	}
	if s.Group != 64 || len(s.F16) != 3 || s.F16[0] != 0x3c00 || s.F16[1] != 0x1234 || s.F16[2] != 0x5555 {
		t.Errorf("scales %+v", s)
	}
	// Code 3 (+2d) in row 1 element 45 (qs[11], bits 3:2) and row 2 element 7.
	src[18+2+11] = 0b01_01_11_01
	src[36+2+1] = 0b11_01_01_01
	checkNT(t, Q2_0.Decode(src, 64, 3, &p, &s), 1, 45)
	// The same bytes seen as one row of 192.
	checkNT(t, Q2_0.Decode(src, 192, 1, &p, &s), 0, 64+45)
}

func TestQ2_0Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, shape := range [][2]int{{64, 1}, {192, 3}, {2560, 2}} {
		k, rows := shape[0], shape[1]
		for trial := range 20 {
			src := make([]byte, Q2_0.TensorBytes(k, rows))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			if trial%2 == 0 {
				noCode3(src)
			}
			var p Planes
			var s Scales
			err := Q2_0.Decode(src, k, rows, &p, &s)
			ref, d := refDecodeQ2_0(src, k, rows)
			checkAgainstRef(t, &p, err, ref, k, rows)
			sameScales(t, &s, &Scales{Group: 64, F16: d})
			if err == nil {
				out := make([]byte, len(src))
				if err := Q2_0.Encode(&p, &s, out); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out, src) {
					t.Fatal("Encode(Decode(x)) != x for code-3-free Q2_0 bytes")
				}
			}
		}
	}
}

func TestQ2_0MatchesQuantizeRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	for _, z := range []float64{0, 0.3, 0.5, 0.9} {
		k, rows := 320, 3
		v := stockCodes(rng, k*rows, z)
		s := stockScales(rng, 64, k*rows/64)
		out := make([]byte, Q2_0.TensorBytes(k, rows))
		if err := Q2_0.Encode(stockPlanesOf(v, k, rows), s, out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, refPackQ2_0(v, s.F16)) {
			t.Fatalf("z=%v: Encode differs from quantize_row_q2_0_ref packing", z)
		}
	}
}

func BenchmarkDecodeQ2_0(b *testing.B) { benchStock(b, Q2_0, true) }
func BenchmarkEncodeQ2_0(b *testing.B) { benchStock(b, Q2_0, false) }
