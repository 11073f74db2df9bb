package format

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// Helpers shared by the stock-layout tests (tq2_0, tq1_0, q2_0, i2s).

// stockCodes draws rows*k ternary values (-1/0/+1) with zero density z.
func stockCodes(rng *rand.Rand, n int, z float64) []int8 {
	v := make([]int8, n)
	for i := range v {
		if rng.Float64() >= z {
			v[i] = int8(1 - 2*rng.IntN(2))
		}
	}
	return v
}

// stockPlanesOf builds Planes from flat row-major values, weight by weight.
func stockPlanesOf(v []int8, k, rows int) *Planes {
	p := &Planes{}
	p.Reset(k, rows)
	for r := range rows {
		for j := range k {
			p.Set(r, j, v[r*k+j])
		}
	}
	return p
}

// stockScales returns random raw fp16 scales (any bit pattern, NaNs too).
func stockScales(rng *rand.Rand, group, n int) *Scales {
	s := &Scales{Group: group}
	for range n {
		s.F16 = append(s.F16, uint16(rng.Uint32()))
	}
	return s
}

// samePlanes fails t unless a and b hold the same shape and values.
func samePlanes(t testing.TB, a, b *Planes) {
	t.Helper()
	if a.K != b.K || a.Rows != b.Rows {
		t.Fatalf("shapes differ: %dx%d vs %dx%d", a.Rows, a.K, b.Rows, b.K)
	}
	if r, e, ok := FirstDiff(a, b); ok {
		t.Fatalf("planes differ at row %d elem %d: %d vs %d", r, e, a.Value(r, e), b.Value(r, e))
	}
	for i := range a.Neg {
		if a.Neg[i]&^a.Present[i] != 0 || b.Neg[i]&^b.Present[i] != 0 {
			t.Fatalf("word %d: Neg outside Present", i)
		}
	}
}

func sameScales(t testing.TB, a, b *Scales) {
	t.Helper()
	if a.Group != b.Group || a.F32 != b.F32 || len(a.F16) != len(b.F16) || !bytes.Equal(a.Tail, b.Tail) {
		t.Fatalf("scales differ: group %d/%d f32 %#x/%#x len %d/%d tail %x/%x",
			a.Group, b.Group, a.F32, b.F32, len(a.F16), len(b.F16), a.Tail, b.Tail)
	}
	for i := range a.F16 {
		if a.F16[i] != b.F16[i] {
			t.Fatalf("scale %d: %#04x vs %#04x", i, a.F16[i], b.F16[i])
		}
	}
}

// checkAgainstRef compares a fast decode (p, err) with a reference decode
// (values -1/0/+1, or 2 for code 3) weight by weight.
func checkAgainstRef(t testing.TB, p *Planes, err error, ref []int, k, rows int) {
	t.Helper()
	first := -1
	for f, v := range ref {
		want := v
		if v == 2 {
			want = 1 // code 3 reads as +1
			if first < 0 {
				first = f
			}
		}
		if got := p.Value(f/k, f%k); int(got) != want {
			t.Fatalf("row %d elem %d: fast %d, reference %d", f/k, f%k, got, v)
		}
	}
	if first < 0 {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	var nt *NotTernaryError
	if !errors.As(err, &nt) || !errors.Is(err, ErrNotTernary) {
		t.Fatalf("want NotTernaryError, got %v", err)
	}
	if nt.Row != first/k || nt.Elem != first%k || nt.Code != 3 {
		t.Fatalf("NotTernaryError at %d/%d code %d, want %d/%d", nt.Row, nt.Elem, nt.Code, first/k, first%k)
	}
}

// stockCodecs lists the codecs with a block size usable in generic tests.
var stockCodecs = []struct {
	c     Codec
	block int
}{{TQ2_0, 256}, {TQ1_0, 256}, {Q2_0, 64}, {I2S, 128}}

// TestStockRoundTrip: Decode(Encode(p, s)) == p, s and Encode(Decode(x)) == x
// for x written by Encode, over shapes and zero densities.
func TestStockRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sc := range stockCodecs {
		for _, shape := range [][2]int{{sc.block, 1}, {2 * sc.block, 3}, {768, 5}, {2560, 4}, {256, 0}} {
			k, rows := shape[0], shape[1]
			if !sc.c.Supports(k) {
				continue
			}
			for _, z := range []float64{0, 0.42, 1} {
				p := stockPlanesOf(stockCodes(rng, k*rows, z), k, rows)
				var s *Scales
				if g := sc.c.ScaleGroup(); g > 0 {
					s = stockScales(rng, g, k/g*rows)
				} else {
					s = &Scales{F32: rng.Uint32(), Tail: make([]byte, 28)}
					for i := range s.Tail {
						s.Tail[i] = byte(rng.Uint32())
					}
				}
				buf := make([]byte, sc.c.TensorBytes(k, rows))
				if err := sc.c.Encode(p, s, buf); err != nil {
					t.Fatalf("%s %dx%d: encode: %v", sc.c.Name(), rows, k, err)
				}
				var q Planes
				var s2 Scales
				if err := sc.c.Decode(buf, k, rows, &q, &s2); err != nil {
					t.Fatalf("%s %dx%d: decode: %v", sc.c.Name(), rows, k, err)
				}
				samePlanes(t, p, &q)
				sameScales(t, s, &s2)
				buf2 := make([]byte, len(buf))
				if err := sc.c.Encode(&q, &s2, buf2); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, buf2) {
					t.Fatalf("%s %dx%d z=%v: re-encode differs", sc.c.Name(), rows, k, z)
				}
				// Decoding into used buffers gives the same result.
				if err := sc.c.Decode(buf, k, rows, &q, &s2); err != nil {
					t.Fatal(err)
				}
				samePlanes(t, p, &q)
				sameScales(t, s, &s2)
			}
		}
	}
}

// TestStockBadSizes: wrong lengths and shapes are errors, never panics.
func TestStockBadSizes(t *testing.T) {
	for _, sc := range stockCodecs {
		c := sc.c
		k, rows := 2*256, 2
		n := c.TensorBytes(k, rows)
		good := make([]byte, n)
		var p Planes
		var s Scales
		if err := c.Decode(good, k, rows, &p, &s); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		for _, tc := range []struct {
			name    string
			src     []byte
			k, rows int
		}{
			{"truncated", good[:n-1], k, rows},
			{"oversized", append(good[:n:n], 0), k, rows},
			{"empty", nil, k, rows},
			{"k not a block multiple", good, k + 32, rows},
			{"k zero", good, 0, rows},
			{"k negative", good, -k, rows},
			{"rows negative", good, k, -1},
			{"huge", good, 1 << 40, 1 << 40},
		} {
			var p Planes
			var s Scales
			if err := c.Decode(tc.src, tc.k, tc.rows, &p, &s); err == nil {
				t.Errorf("%s %s: no error", c.Name(), tc.name)
			} else if errors.Is(err, ErrNotTernary) {
				t.Errorf("%s %s: reported as not ternary: %v", c.Name(), tc.name, err)
			}
		}
		if c.TensorBytes(k+32, 1) != -1 || c.TensorBytes(k, -1) != -1 || c.Supports(k+32) || c.Supports(0) {
			t.Errorf("%s accepts a bad shape", c.Name())
		}
		// Encode argument checks.
		dst := make([]byte, n)
		bad := []struct {
			name string
			p    *Planes
			s    *Scales
			dst  []byte
		}{
			{"short dst", &p, &s, dst[:n-1]},
			{"long dst", &p, &s, append(dst[:n:n], 0)},
			{"scale group", &p, &Scales{Group: s.Group + 1, F16: s.F16}, dst},
			{"short planes", &Planes{K: k, Rows: rows, Present: p.Present[:1], Neg: p.Neg[:1]}, &s, dst},
			{"bad k", &Planes{K: k + 64, Rows: rows, Present: p.Present, Neg: p.Neg}, &s, dst},
		}
		if s.Group > 0 {
			bad = append(bad, struct {
				name string
				p    *Planes
				s    *Scales
				dst  []byte
			}{"short scales", &p, &Scales{Group: s.Group, F16: s.F16[1:]}, dst})
		} else {
			bad = append(bad, struct {
				name string
				p    *Planes
				s    *Scales
				dst  []byte
			}{"tail length", &p, &Scales{Tail: make([]byte, 5)}, dst})
		}
		for _, tc := range bad {
			if err := c.Encode(tc.p, tc.s, tc.dst); err == nil {
				t.Errorf("%s encode %s: no error", c.Name(), tc.name)
			}
		}
	}
}

// TestNegOutsidePresent: Encode writes a Neg bit without its Present bit as 0.
func TestNegOutsidePresent(t *testing.T) {
	for _, sc := range stockCodecs {
		c := sc.c
		k := 256
		p := &Planes{}
		p.Reset(k, 1)
		for i := range p.Neg {
			p.Neg[i] = 0xf0f0f0f0f0f0f0f0
			p.Present[i] = 0xff00ff00ff00ff00
		}
		want := &Planes{}
		want.Reset(k, 1)
		for i := range want.Neg {
			want.Present[i] = p.Present[i]
			want.Neg[i] = p.Neg[i] & p.Present[i]
		}
		s := &Scales{Group: c.ScaleGroup()}
		if g := c.ScaleGroup(); g > 0 {
			s.F16 = make([]uint16, k/g)
		}
		buf := make([]byte, c.TensorBytes(k, 1))
		if err := c.Encode(p, s, buf); err != nil {
			t.Fatal(err)
		}
		var q Planes
		var s2 Scales
		if err := c.Decode(buf, k, 1, &q, &s2); err != nil {
			t.Fatal(err)
		}
		samePlanes(t, want, &q)
	}
}

func TestTranspose8x8(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		x := rng.Uint64()
		var want uint64
		for i := range 8 {
			for j := range 8 {
				if x>>(8*i+j)&1 != 0 {
					want |= 1 << (8*j + i)
				}
			}
		}
		if got := transpose8x8(x); got != want {
			t.Fatalf("transpose8x8(%#x) = %#x, want %#x", x, got, want)
		}
		if transpose8x8(want) != x {
			t.Fatal("transpose8x8 is not an involution")
		}
	}
}

func TestZip16(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 1000 {
		x, y := rng.Uint64(), rng.Uint64()
		z := zip16(x, y)
		wantZ := x&0xffff | (y&0xffff)<<16 | (x>>16&0xffff)<<32 | (y>>16&0xffff)<<48
		if z != wantZ {
			t.Fatalf("zip16 = %#x, want %#x", z, wantZ)
		}
		if a, b := unzip16(z); a != x&0xffffffff || b != y&0xffffffff {
			t.Fatal("unzip16 does not undo zip16")
		}
	}
}
