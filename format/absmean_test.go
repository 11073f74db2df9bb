package format

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

func TestTernarizeTies(t *testing.T) {
	// mean|w| == 1 exactly, so iscale == 1 and w*iscale == w: the rounding
	// rule is seen directly. The |w| below sum to 13 + 2^-24; 50 ones and one
	// 1 - 2^-24 bring the 64 weights to exactly 64.
	up, down := math.Nextafter32(0.5, 1), math.Nextafter32(0.5, 0)
	w := []float32{0.5, -0.5, up, -up, down, -down, 1.5, 2.5, -2.5, -1.5, 0, 1, -1}
	want := []int8{0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 1, -1}
	for range 50 {
		w = append(w, 1)
	}
	w = append(w, math.Nextafter32(1, 0))
	var p Planes
	s := Ternarize(w, 64, 1, &p)
	if s != 1 {
		t.Fatalf("scale %v, want 1", s)
	}
	for j, v := range want {
		if got := p.Value(0, j); got != v {
			t.Errorf("w=%v: got %d, want %d", w[j], got, v)
		}
	}
}

func TestTernarizeRows(t *testing.T) {
	// Two rows of 64 with a known mean: values +-4 and 0, mean 2.
	k, rows := 64, 2
	w := make([]float32, k*rows)
	for i := range w {
		switch i % 4 {
		case 0:
			w[i] = 4
		case 1:
			w[i] = -4
		case 2:
			w[i] = 0.9 // 0.45 after scaling: zero
		case 3:
			w[i] = -float32(0.9)
		}
	}
	// sum = 128*(4+4+0.9+0.9)/4 = 313.6 -> mean 2.45.
	var p Planes
	s := Ternarize(w, k, rows, &p)
	if want := float32(float64(32*4+32*4+64*float64(float32(0.9))) / 128); s != want {
		t.Fatalf("scale %v, want %v", s, want)
	}
	for r := range rows {
		for j := range k {
			want := [4]int8{1, -1, 0, 0}[(r*k+j)%4]
			if got := p.Value(r, j); got != want {
				t.Fatalf("row %d elem %d: %d, want %d", r, j, got, want)
			}
		}
	}
}

func TestTernarizeEdges(t *testing.T) {
	var p Planes
	w := make([]float32, 128)
	if s := Ternarize(w, 64, 2, &p); s != float32(1e-5) {
		t.Errorf("all-zero scale %v, want clamp 1e-5", s)
	}
	for i := range p.Present {
		if p.Present[i] != 0 || p.Neg[i] != 0 {
			t.Fatal("all-zero tensor has non-zero weights")
		}
	}
	// Tiny weights: the 1e-5 clamp makes w*iscale decide.
	w[0], w[1], w[2] = 6e-6, -6e-6, 4e-6
	Ternarize(w, 64, 2, &p)
	if p.Value(0, 0) != 1 || p.Value(0, 1) != -1 || p.Value(0, 2) != 0 {
		t.Errorf("clamped scale: %d %d %d", p.Value(0, 0), p.Value(0, 1), p.Value(0, 2))
	}
	w[3] = float32(math.NaN())
	if s := Ternarize(w, 64, 2, &p); !math.IsNaN(float64(s)) {
		t.Errorf("NaN weight: scale %v", s)
	}
	for i := range p.Present {
		if p.Present[i] != 0 {
			t.Fatal("NaN scale must give all zeros")
		}
	}
	if s := Ternarize(nil, 64, 0, &p); s != float32(1e-5) || p.Rows != 0 {
		t.Errorf("empty: %v", s)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic on a length mismatch")
		}
	}()
	Ternarize(w[:100], 64, 2, &p)
}

// TestTernarizeReference compares with the formula written per weight in
// float64 where that is exact (the product of two float32s rounded once).
func TestTernarizeReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	k, rows := 256, 8
	w := make([]float32, k*rows)
	for i := range w {
		w[i] = float32(rng.NormFloat64() * 0.02)
	}
	var p Planes
	s := Ternarize(w, k, rows, &p)
	var sum float64
	for _, v := range w {
		sum += math.Abs(float64(v))
	}
	if want := float32(sum / float64(len(w))); s != want {
		t.Fatalf("scale %v, want %v", s, want)
	}
	inv := float32(1 / s)
	zeros := 0
	for f, v := range w {
		x := float64(float32(float64(v) * float64(inv)))
		want := int8(math.Max(-1, math.Min(1, math.RoundToEven(x))))
		if got := p.Value(f/k, f%k); got != want {
			t.Fatalf("w[%d]=%v: %d, want %d", f, v, got, want)
		}
		if want == 0 {
			zeros++
		}
	}
	// For Gaussian weights P(|w| <= 0.5*mean|w|) ~ 0.31.
	if z := float64(zeros) / float64(len(w)); z < 0.25 || z > 0.37 {
		t.Errorf("zero density %v", z)
	}
}

func TestF16BF16ToF32(t *testing.T) {
	f16 := []uint16{0x3c00, 0xc000, 0x7c00, 0xfc00, 0x0001, 0x7bff, 0x8000, 0x3555}
	want := []float32{1, -2, float32(math.Inf(1)), float32(math.Inf(-1)), 0x1p-24, 65504, float32(math.Copysign(0, -1)), 0.33325195}
	src := make([]byte, 2*len(f16))
	for i, v := range f16 {
		binary.LittleEndian.PutUint16(src[2*i:], v)
	}
	dst := make([]float32, len(f16))
	F16ToF32(src, dst)
	for i := range dst {
		if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
			t.Errorf("f16 %#04x -> %v, want %v", f16[i], dst[i], want[i])
		}
	}
	// NaN stays NaN.
	binary.LittleEndian.PutUint16(src, 0x7e00)
	F16ToF32(src[:2], dst[:1])
	if !math.IsNaN(float64(dst[0])) {
		t.Errorf("f16 NaN -> %v", dst[0])
	}

	bf := []uint16{0x3f80, 0xc040, 0x7f80, 0x0001, 0x8000, 0x3eaa}
	src = src[:2*len(bf)]
	for i, v := range bf {
		binary.LittleEndian.PutUint16(src[2*i:], v)
	}
	dst = dst[:len(bf)]
	BF16ToF32(src, dst)
	for i := range dst {
		if got := math.Float32bits(dst[i]); got != uint32(bf[i])<<16 {
			t.Errorf("bf16 %#04x -> %#08x", bf[i], got)
		}
	}
	if dst[0] != 1 || dst[1] != -3 {
		t.Errorf("bf16 values %v", dst[:2])
	}
}
