package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestVecDotQ8KMatchesPlanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, k := range testKs {
		for _, perTensor := range []bool{false, true} {
			m := makeRows(t, rng, k, 12, testZs, perTensor)
			for _, raw := range []bool{false, true} {
				y := randomActivations(rng, k, raw)
				for r := range m.rows {
					got := VecDotQ8K(m.rowBitmap(r), m.rowSigns(r), m.rowScales(r), m.d32, y)
					want := naiveDot(m.p, r, m.rowScales(r), m.d32, y)
					if math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("k=%d row %d: VecDotQ8K = %v, planes give %v", k, r, got, want)
					}
				}
			}
		}
	}
}

func TestVecDotQ8KHandBuilt(t *testing.T) {
	// one block: weights +1 at 0, -1 at 1, 0 at 2, -1 at 9, +1 at 255
	bitmap := make([]byte, 32)
	bitmap[0] = 0b011
	bitmap[1] = 0b10
	bitmap[31] = 0x80
	signs := []byte{0b0110, 0, 0, 0, 0, 0, 0, 0, 0} // sign k: +, -, -, +
	var y [1]BlockQ8K
	y[0].D = 0.5
	y[0].Qs[0], y[0].Qs[1], y[0].Qs[2], y[0].Qs[9], y[0].Qs[255] = 10, 3, 100, -7, 2
	// sumi = 10 - 3 + 7 + 2 = 16; d = 0.5 * 0.25
	if got := VecDotQ8K(bitmap, signs, nil, 0.25, y[:]); got != 2 {
		t.Fatalf("got %v, want 2", got)
	}
	d16 := []uint16{0x3c00} // 1.0
	if got := VecDotQ8K(bitmap, signs, d16, 0, y[:]); got != 8 {
		t.Fatalf("got %v, want 8", got)
	}
}

func TestQuantizeQ8K(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 4*QK_K)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	for i := QK_K; i < 2*QK_K; i++ {
		x[i] = 0 // an all-zero block
	}
	x[2*QK_K+17] = 50 // a positive maximum: d < 0
	x[3*QK_K+5] = -50 // a negative maximum: d > 0
	y := make([]BlockQ8K, 4)
	QuantizeQ8K(x, y)
	if y[1].D != 0 || y[1].Qs != [QK_K]int8{} || y[1].Bsums != [16]int16{} {
		t.Fatalf("zero block: %+v", y[1])
	}
	if y[2].Qs[17] != -127 || y[2].D >= 0 || y[3].Qs[5] != -127 || y[3].D <= 0 {
		t.Fatalf("extremes: %d %v, %d %v", y[2].Qs[17], y[2].D, y[3].Qs[5], y[3].D)
	}
	for b := range y {
		for g := range 16 {
			s := 0
			for _, q := range y[b].Qs[16*g : 16*g+16] {
				s += int(q)
				if q == -128 {
					t.Fatalf("block %d holds -128", b)
				}
			}
			if int(y[b].Bsums[g]) != s {
				t.Fatalf("block %d bsums[%d] = %d, want %d", b, g, y[b].Bsums[g], s)
			}
		}
		for j := range QK_K {
			if e := math.Abs(float64(y[b].D)*float64(y[b].Qs[j]) - float64(x[b*QK_K+j])); e > math.Abs(float64(y[b].D))/2*1.0001 {
				t.Fatalf("block %d elem %d: %v*%d vs %v", b, j, y[b].D, y[b].Qs[j], x[b*QK_K+j])
			}
		}
	}
	// nearest_int itself: format.TestQuantNearestInt.
}
