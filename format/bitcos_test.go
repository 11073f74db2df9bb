package format

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomPlanes fills rows x k weights with zero density z; rows listed in
// zeroRows are all zero.
func randomPlanes(rng *rand.Rand, k, rows int, z float64, zeroRows ...int) *Planes {
	p := &Planes{}
	p.Reset(k, rows)
	isZero := map[int]bool{}
	for _, r := range zeroRows {
		isZero[r] = true
	}
	for r := 0; r < rows; r++ {
		if isZero[r] {
			continue
		}
		for j := 0; j < k; j++ {
			if rng.Float64() >= z {
				if rng.IntN(2) == 0 {
					p.Set(r, j, -1)
				} else {
					p.Set(r, j, 1)
				}
			}
		}
	}
	return p
}

// refEncodeBitcos is the format written out weight by weight, straight from
// docs/FORMAT.md, independent of the word-level encoder.
func refEncodeBitcos(p *Planes) (bitmap, signs, index []byte) {
	bitmap = make([]byte, p.K*p.Rows/8)
	index = make([]byte, 4*(p.Rows+1))
	for r := 0; r < p.Rows; r++ {
		binary.LittleEndian.PutUint32(index[4*r:], uint32(len(signs)))
		var row []byte
		n := 0
		for j := 0; j < p.K; j++ {
			v := p.Value(r, j)
			if v == 0 {
				continue
			}
			f := r*p.K + j
			bitmap[f/8] |= 1 << (f % 8)
			if n%8 == 0 {
				row = append(row, 0)
			}
			if v < 0 {
				row[n/8] |= 1 << (n % 8)
			}
			n++
		}
		signs = append(signs, row...)
	}
	binary.LittleEndian.PutUint32(index[4*p.Rows:], uint32(len(signs)))
	signs = append(signs, make([]byte, SignTailBytes)...)
	return
}

func encodeBitcosT(t testing.TB, p *Planes) (bitmap, signs, index []byte) {
	off, err := BitcosRowOffsets(RowNonZeros(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	bitmap = make([]byte, BitcosBitmapBytes(p.K, p.Rows))
	signs = make([]byte, int(off[p.Rows])+SignTailBytes)
	for i := range signs {
		signs[i] = 0xAA // the encoder must overwrite every byte
	}
	index = make([]byte, 4*(p.Rows+1))
	if err := EncodeBitcos(p, off, bitmap, signs, index); err != nil {
		t.Fatal(err)
	}
	return
}

func TestBitcosRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name    string
		k, rows int
		z       float64
		zero    []int
	}{
		{"one block", 128, 1, 0.42, nil},
		{"dense", 256, 3, 0, nil},
		{"all zero", 256, 4, 1, nil},
		{"sparse", 384, 5, 0.9, nil},
		{"bitnet-like", 2560, 7, 0.42, []int{2, 6}},
		{"high z", 1024, 9, 0.515, []int{0}},
		{"low z", 640, 3, 0.30, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := randomPlanes(rng, c.k, c.rows, c.z, c.zero...)
			bm, sg, ix := encodeBitcosT(t, p)
			rbm, rsg, rix := refEncodeBitcos(p)
			if !bytes.Equal(bm, rbm) || !bytes.Equal(sg, rsg) || !bytes.Equal(ix, rix) {
				t.Fatalf("encoder differs from the reference layout")
			}
			var q Planes
			if err := DecodeBitcos(c.k, c.rows, bm, sg, ix, &q); err != nil {
				t.Fatal(err)
			}
			if r, e, diff := FirstDiff(p, &q); diff {
				t.Fatalf("decode differs at row %d elem %d", r, e)
			}
		})
	}
}

func TestBitcosHandBuilt(t *testing.T) {
	// One row of 128: weights 0=+1, 1=-1, 5=-1, 64=+1, 127=-1; rest 0.
	p := &Planes{}
	p.Reset(128, 1)
	for j, v := range map[int]int8{0: 1, 1: -1, 5: -1, 64: 1, 127: -1} {
		p.Set(0, j, v)
	}
	bm, sg, ix := encodeBitcosT(t, p)
	wantBM := make([]byte, 16)
	wantBM[0] = 0b0010_0011
	wantBM[8] = 0b0000_0001
	wantBM[15] = 0b1000_0000
	// signs in order: +,-,-,+,- -> bits 0,1,1,0,1 -> 0b10110
	wantSG := append([]byte{0b1_0110}, make([]byte, SignTailBytes)...)
	wantIX := []byte{0, 0, 0, 0, 1, 0, 0, 0}
	if !bytes.Equal(bm, wantBM) || !bytes.Equal(sg, wantSG) || !bytes.Equal(ix, wantIX) {
		t.Fatalf("got bitmap %x signs %x index %x", bm, sg, ix)
	}
}

func TestBitcosRejectsCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randomPlanes(rng, 256, 4, 0.4, 1)
	bm, sg, ix := encodeBitcosT(t, p)
	mut := func(f func(bm, sg, ix []byte) ([]byte, []byte, []byte)) ([]byte, []byte, []byte) {
		return f(bytes.Clone(bm), bytes.Clone(sg), bytes.Clone(ix))
	}
	cases := []struct {
		name string
		k    int
		bm   []byte
		sg   []byte
		ix   []byte
		want string
	}{
		{"short bitmap", 256, bm[:len(bm)-1], sg, ix, "bitmap"},
		{"short index", 256, bm, sg, ix[:len(ix)-4], "row index"},
		{"k not 128", 192, bm, sg, ix, "multiple of 128"},
		{"no tail", 256, bm, sg[:len(sg)-1], ix, "beyond"},
		{"index start", 256, bm, sg, func() []byte {
			_, _, x := mut(func(a, b, c []byte) ([]byte, []byte, []byte) { c[0] = 1; return a, b, c })
			return x
		}(), "starts at"},
		{"bitmap bit flipped", 256, func() []byte { b := bytes.Clone(bm); b[0] ^= 0xff; return b }(), sg, ix, "non-zero weights"},
		{"tail not zero", 256, bm, func() []byte { s := bytes.Clone(sg); s[len(s)-1] = 1; return s }(), ix, "zero padding"},
		{"long stream", 256, bm, append(bytes.Clone(sg), 0), ix, "sign stream is"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var q Planes
			err := DecodeBitcos(c.k, 4, c.bm, c.sg, c.ix, &q)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestBitcosPaddingBits(t *testing.T) {
	p := &Planes{}
	p.Reset(128, 1)
	p.Set(0, 3, -1) // one sign bit; 7 padding bits
	bm, sg, ix := encodeBitcosT(t, p)
	sg[0] |= 0x80
	var q Planes
	if err := DecodeBitcos(128, 1, bm, sg, ix, &q); err == nil || !strings.Contains(err.Error(), "padding bits") {
		t.Fatalf("got %v", err)
	}
}

func TestPextPdep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		v, m := rng.Uint64(), rng.Uint64()
		switch i % 4 {
		case 1:
			m &= rng.Uint64()
		case 2:
			m = ^uint64(0)
		case 3:
			m = 0
		}
		// bit-by-bit reference
		var ext, dep uint64
		k := 0
		for j := 0; j < 64; j++ {
			if m&(1<<j) != 0 {
				ext |= (v >> j & 1) << k
				dep |= (v >> k & 1) << j
				k++
			}
		}
		if got := pext64(v, m); got != ext {
			t.Fatalf("pext64(%x,%x)=%x want %x", v, m, got, ext)
		}
		if got := pdep64(v, m); got != dep {
			t.Fatalf("pdep64(%x,%x)=%x want %x", v, m, got, dep)
		}
		if bits.OnesCount64(ext) > bits.OnesCount64(m) {
			t.Fatal("impossible")
		}
	}
}

func FuzzDecodeBitcos(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := randomPlanes(rng, 128, 2, 0.4)
	bm, sg, ix := encodeBitcosT(f, p)
	f.Add(uint8(2), append(append(bytes.Clone(bm), ix...), sg...))
	f.Fuzz(func(t *testing.T, rows8 uint8, data []byte) {
		rows := int(rows8%4) + 1
		nbm, nix := 16*rows, 4*(rows+1)
		if len(data) < nbm+nix {
			return
		}
		bm, ix, sg := data[:nbm], data[nbm:nbm+nix], data[nbm+nix:]
		var q Planes
		if err := DecodeBitcos(128, rows, bm, sg, ix, &q); err != nil {
			return
		}
		// Whatever decodes must be the canonical encoding of what it decodes to.
		bm2, sg2, ix2 := encodeBitcosT(t, &q)
		if !bytes.Equal(bm, bm2) || !bytes.Equal(sg, sg2) || !bytes.Equal(ix, ix2) {
			t.Fatalf("accepted a non-canonical encoding")
		}
	})
}

func BenchmarkEncodeBitcos(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := randomPlanes(rng, 2560, 256, 0.42)
	off, _ := BitcosRowOffsets(RowNonZeros(p, nil))
	bm := make([]byte, BitcosBitmapBytes(p.K, p.Rows))
	sg := make([]byte, int(off[p.Rows])+SignTailBytes)
	ix := make([]byte, 4*(p.Rows+1))
	b.SetBytes(int64(p.K * p.Rows / 4)) // as 2-bit input bytes
	for b.Loop() {
		EncodeBitcos(p, off, bm, sg, ix)
	}
}

func BenchmarkDecodeBitcos(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := randomPlanes(rng, 2560, 256, 0.42)
	bm, sg, ix := encodeBitcosT(b, p)
	var q Planes
	b.SetBytes(int64(p.K * p.Rows / 4))
	for b.Loop() {
		DecodeBitcos(p.K, p.Rows, bm, sg, ix, &q)
	}
}

// TestPextPdepWordsTwins checks the dispatched (BMI2 assembly where the CPU
// has it) word routines against the portable ones.
func TestPextPdepWordsTwins(t *testing.T) {
	t.Logf("useBMI2 = %v", useBMI2)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 7, 40, 108} {
		v, m := make([]uint64, n), make([]uint64, n)
		for i := range v {
			v[i], m[i] = rng.Uint64(), rng.Uint64()&rng.Uint64()
		}
		m[0] = ^uint64(0)
		a, b := make([]uint64, n), make([]uint64, n)
		pextWords(a, v, m)
		pextWordsGeneric(b, v, m)
		if !slices.Equal(a, b) {
			t.Fatalf("pextWords differs from its generic twin (n=%d)", n)
		}
		pdepWords(a, v, m)
		pdepWordsGeneric(b, v, m)
		if !slices.Equal(a, b) {
			t.Fatalf("pdepWords differs from its generic twin (n=%d)", n)
		}
	}
	pextWords(nil, nil, nil) // empty rows must not fault
}

// TestVerifyBitcos: the encoding of p verifies; any flipped bit in bitmap,
// signs or index, or a different p, does not.
func TestVerifyBitcos(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	p := randomPlanes(rng, 512, 6, 0.42, 2)
	bm, sg, ix := encodeBitcosT(t, p)
	if err := VerifyBitcos(p, bm, sg, ix); err != nil {
		t.Fatal(err)
	}
	for _, part := range []struct {
		name string
		b    []byte
	}{{"bitmap", bm}, {"signs", sg}, {"index", ix}} {
		for i := 0; i < len(part.b)*8; i += 7 {
			part.b[i/8] ^= 1 << (i % 8)
			if err := VerifyBitcos(p, bm, sg, ix); err == nil {
				t.Fatalf("%s bit %d flipped: verified", part.name, i)
			}
			part.b[i/8] ^= 1 << (i % 8)
		}
	}
	q := randomPlanes(rng, 512, 6, 0.42, 2)
	copy(q.Present, p.Present) // same positions, other signs
	for i := range q.Neg {
		q.Neg[i] &= q.Present[i]
	}
	if err := VerifyBitcos(q, bm, sg, ix); err == nil && FirstDiffOK(p, q) {
		t.Fatal("other signs verified")
	}
}

// FirstDiffOK reports whether a and b differ.
func FirstDiffOK(a, b *Planes) bool { _, _, d := FirstDiff(a, b); return d }

// randomPresence fills pres with dense, empty and random (about 1/4 set)
// presence words in random order and returns how many bits are set.
func randomPresence(rng *rand.Rand, pres []uint64) int {
	total := 0
	for i := range pres {
		switch rng.IntN(4) {
		case 0:
			pres[i] = ^uint64(0)
		case 1:
			pres[i] = 0
		default:
			pres[i] = rng.Uint64() & rng.Uint64()
		}
		total += bits.OnesCount64(pres[i])
	}
	return total
}

// TestDepositRowTwins checks the dispatched sign deposit (BMI2 assembly
// where the CPU has it) against the portable one at every bit offset, with
// dense, empty and random presence words.
func TestDepositRowTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	signs := make([]byte, 64*8+16)
	for i := range signs {
		signs[i] = byte(rng.Uint32())
	}
	for _, n := range []int{1, 3, 40} {
		pres := make([]uint64, n)
		for trial := 0; trial < 20; trial++ {
			total := randomPresence(rng, pres)
			for pos := 0; pos < 8*8; pos++ {
				if (pos+total+7)/8+8 > len(signs) {
					break
				}
				a, b := make([]uint64, n), make([]uint64, n)
				dep := make([]uint64, n)
				pa := depositRow(a, dep, signs, pos, pres)
				pb := depositRowGeneric(b, dep, signs, pos, pres)
				if pa != pb || !slices.Equal(a, b) {
					t.Fatalf("n=%d pos=%d: dispatched (end %d) differs from generic (end %d)", n, pos, pa, pb)
				}
			}
		}
	}
}

// TestPackRowTwins checks the dispatched sign packing (BMI2 assembly where
// the CPU has it) against the portable one, with dense, empty and random
// presence words in every order.
func TestPackRowTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	for _, n := range []int{1, 2, 5, 40} {
		for trial := 0; trial < 200; trial++ {
			pres, neg := make([]uint64, n), make([]uint64, n)
			nnz := randomPresence(rng, pres)
			for i := range neg {
				neg[i] = rng.Uint64() & pres[i]
			}
			a, b := make([]byte, (nnz+7)/8), make([]byte, (nnz+7)/8)
			ext := make([]uint64, n)
			na := packRow(a, ext, pres, neg)
			nb := packRowGeneric(b, ext, pres, neg)
			if na != nb || na != len(a) || !bytes.Equal(a, b) {
				t.Fatalf("n=%d trial %d: dispatched wrote %d bytes %x, generic %d bytes %x", n, trial, na, a, nb, b)
			}
		}
	}
}
