package format

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// refDecodeTQ1_0 follows dequantize_row_tq1_0 (ggml-quants.c at the pin) loop
// for loop, returning code-1 per weight and the scales.
func refDecodeTQ1_0(src []byte, k, rows int) ([]int, []uint16) {
	nb := k * rows / 256
	pow3 := [6]uint8{1, 3, 9, 27, 81, 243}
	var y []int
	var d []uint16
	for i := 0; i < nb; i++ {
		x := src[i*54 : i*54+54]
		qs, qh := x[0:48], x[48:52]
		d = append(d, uint16(x[52])|uint16(x[53])<<8)
		for j := 0; j < 48-48%32; j += 32 {
			for n := 0; n < 5; n++ {
				for m := 0; m < 32; m++ {
					q := qs[j+m] * pow3[n]
					xi := int16((uint16(q) * 3) >> 8)
					y = append(y, int(xi)-1)
				}
			}
		}
		for j := 48 - 48%32; j < 48; j += 16 {
			for n := 0; n < 5; n++ {
				for m := 0; m < 16; m++ {
					q := qs[j+m] * pow3[n]
					xi := int16((uint16(q) * 3) >> 8)
					y = append(y, int(xi)-1)
				}
			}
		}
		for n := 0; n < 4; n++ {
			for j := 0; j < 4; j++ {
				q := qh[j] * pow3[n]
				xi := int16((uint16(q) * 3) >> 8)
				y = append(y, int(xi)-1)
			}
		}
	}
	return y, d
}

// refPackTQ1_0 transliterates the packing loops of quantize_row_tq1_0_ref
// (ggml-quants.c at the pin), with xi = value+1 in place of
// lroundf(x*id)+1, keeping its uint8_t arithmetic.
func refPackTQ1_0(v []int8, d []uint16) []byte {
	nb := len(v) / 256
	out := make([]byte, nb*54)
	x := v
	for i := 0; i < nb; i++ {
		y := out[i*54 : i*54+54]
		qs, qh := y[0:48], y[48:52]
		// 5 elements per byte, along 32 bytes
		for j := 0; j < 48-48%32; j += 32 {
			for m := 0; m < 32; m++ {
				var q uint8
				for n := 0; n < 5; n++ {
					xi := int(x[m+n*32]) + 1
					q *= 3
					q += uint8(xi)
				}
				// ceiling division (243 == pow(3, 5))
				q = uint8((uint16(q)*256 + (243 - 1)) / 243)
				qs[j+m] = q
			}
			x = x[5*32:]
		}
		// along 16 bytes
		for j := 48 - 48%32; j < 48; j += 16 {
			for m := 0; m < 16; m++ {
				var q uint8
				for n := 0; n < 5; n++ {
					xi := int(x[m+n*16]) + 1
					q *= 3
					q += uint8(xi)
				}
				q = uint8((uint16(q)*256 + (243 - 1)) / 243)
				qs[j+m] = q
			}
			x = x[5*16:]
		}
		// 4 elements per byte
		for j := 0; j < 4; j++ {
			var q uint8
			for m := 0; m < 4; m++ {
				xi := int(x[j+m*4]) + 1
				q *= 3
				q += uint8(xi)
			}
			// shift the first value to the most significant trit
			q *= 3
			q = uint8((uint16(q)*256 + (243 - 1)) / 243)
			qh[j] = q
		}
		x = x[4*4:]
		binary.LittleEndian.PutUint16(y[52:], d[i])
	}
	return out
}

func TestTQ1_0HandBuilt(t *testing.T) {
	// Worked by hand from the layout: 128 = ceil(121*256/243) is five zero
	// trits (code 1); in qh, 127 = ceil(120*256/243) is four zero trits
	// shifted up once.
	src := bytes.Repeat([]byte{128}, 2*54)
	for _, blk := range [][]byte{src[:54], src[54:]} {
		copy(blk[48:52], []byte{127, 127, 127, 127})
	}
	// Trits (2,0,1,1,2): q = 2*81 + 0 + 9 + 3 + 2 = 176, byte ceil(176*256/243) = 186.
	src[0] = 186  // elements 0, 32, 64, 96, 128 = +1, -1, 0, 0, +1
	src[33] = 186 // elements 161, 177, 193, 209, 225 = +1, -1, 0, 0, +1
	// qh[2] with trits (0,2,1,0): q = 2*9 + 3 = 21, *3 = 63, byte ceil(63*256/243) = 67.
	src[48+2] = 67 // elements 242, 246, 250, 254 = -1, +1, 0, -1
	src[52], src[53] = 0x00, 0x3c
	// Row 1: qs[31] = 0 is trits (0,0,0,0,0): elements 31, 63, 95, 127, 159 = -1.
	src[54+31] = 0
	src[54+52], src[54+53] = 0xff, 0x7b
	want := map[[2]int]int8{
		{0, 0}: 1, {0, 32}: -1, {0, 128}: 1,
		{0, 161}: 1, {0, 177}: -1, {0, 225}: 1,
		{0, 242}: -1, {0, 246}: 1, {0, 254}: -1,
		{1, 31}: -1, {1, 63}: -1, {1, 95}: -1, {1, 127}: -1, {1, 159}: -1,
	}
	var p Planes
	var s Scales
	if err := TQ1_0.Decode(src, 256, 2, &p, &s); err != nil {
		t.Fatal(err)
	}
	for r := range 2 {
		for j := range 256 {
			if got := p.Value(r, j); got != want[[2]int{r, j}] {
				t.Errorf("row %d elem %d = %d, want %d", r, j, got, want[[2]int{r, j}])
			}
		}
	}
	if s.Group != 256 || len(s.F16) != 2 || s.F16[0] != 0x3c00 || s.F16[1] != 0x7bff {
		t.Errorf("scales %+v", s)
	}
	// These bytes are canonical, so they re-encode unchanged.
	out := make([]byte, len(src))
	if err := TQ1_0.Encode(&p, &s, out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, src) {
		t.Errorf("re-encode:\n%x\nwant\n%x", out, src)
	}
}

// TestTQ1_0Reference: the fast decoder agrees with dequantize_row_tq1_0 on
// arbitrary bytes (canonical or not).
func TestTQ1_0Reference(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, shape := range [][2]int{{256, 1}, {512, 3}, {2560, 2}} {
		k, rows := shape[0], shape[1]
		for range 20 {
			src := make([]byte, TQ1_0.TensorBytes(k, rows))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			var p Planes
			var s Scales
			err := TQ1_0.Decode(src, k, rows, &p, &s)
			ref, d := refDecodeTQ1_0(src, k, rows)
			checkAgainstRef(t, &p, err, ref, k, rows)
			sameScales(t, &s, &Scales{Group: 256, F16: d})
		}
	}
	// Every byte value, in every position of a block.
	src := make([]byte, 54*256)
	for b := range 256 {
		for i := range 52 {
			src[54*b+i] = byte(b + i)
		}
	}
	var p Planes
	var s Scales
	err := TQ1_0.Decode(src, 256, 256, &p, &s)
	ref, _ := refDecodeTQ1_0(src, 256, 256)
	checkAgainstRef(t, &p, err, ref, 256, 256)
}

// TestTQ1_0MatchesQuantizeRef: Encode writes exactly the bytes of
// quantize_row_tq1_0_ref's packing for the same trits.
func TestTQ1_0MatchesQuantizeRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, z := range []float64{0, 0.3, 0.42, 0.6, 1} {
		for _, shape := range [][2]int{{256, 1}, {768, 3}, {2560, 2}} {
			k, rows := shape[0], shape[1]
			v := stockCodes(rng, k*rows, z)
			s := stockScales(rng, 256, k*rows/256)
			out := make([]byte, TQ1_0.TensorBytes(k, rows))
			if err := TQ1_0.Encode(stockPlanesOf(v, k, rows), s, out); err != nil {
				t.Fatal(err)
			}
			if want := refPackTQ1_0(v, s.F16); !bytes.Equal(out, want) {
				for i := range out {
					if out[i] != want[i] {
						t.Fatalf("z=%v %dx%d: byte %d (block byte %d) = %d, quantize_row_tq1_0_ref %d",
							z, rows, k, i, i%54, out[i], want[i])
					}
				}
			}
		}
	}
}

// TestTQ1_0NonCanonical: a non-canonical byte decodes like the reference and
// re-encodes to the canonical byte of the same trits.
func TestTQ1_0NonCanonical(t *testing.T) {
	canon := map[byte]bool{}
	for q := range 243 {
		canon[byte((q*256+242)/243)] = true
	}
	if len(canon) != 243 {
		t.Fatalf("%d canonical bytes", len(canon))
	}
	src := bytes.Repeat([]byte{128}, 54)
	copy(src[48:52], []byte{127, 127, 127, 127})
	for b := range 256 {
		src[5] = byte(b)
		var p Planes
		var s Scales
		if err := TQ1_0.Decode(src, 256, 1, &p, &s); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 54)
		if err := TQ1_0.Encode(&p, &s, out); err != nil {
			t.Fatal(err)
		}
		if eq := bytes.Equal(out, src); eq != canon[byte(b)] {
			t.Errorf("byte %d: re-encodes unchanged %v, canonical %v", b, eq, canon[byte(b)])
		}
		var q Planes
		if err := TQ1_0.Decode(out, 256, 1, &q, &s); err != nil {
			t.Fatal(err)
		}
		samePlanes(t, &p, &q)
	}
}

func BenchmarkDecodeTQ1_0(b *testing.B) { benchStock(b, TQ1_0, true) }
func BenchmarkEncodeTQ1_0(b *testing.B) { benchStock(b, TQ1_0, false) }
