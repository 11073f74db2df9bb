package format

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Tests of the 2-bit decoders' fast paths (decode_amd64.s) against their
// pure-Go twins and a weight-by-weight reference. Under the noasm tag, or
// on a CPU without the instructions, the dispatchers run the twins and the
// comparison is trivial; the reference checks still bite.

// twoBitCase is one 2-bit layout: its codec, dispatcher and pure-Go twin,
// the words per block, and the position of flat weight f's code.
type twoBitCase struct {
	name    string
	c       Codec
	fast    func(pres, neg []uint64, src []byte) bool
	generic func(pres, neg []uint64, src []byte) bool
	active  bool // the fast path runs on this machine and build
	elems   int  // weights per block
	ks      []int
	codeAt  func(f int) (byte int, shift uint)
}

func twoBitCases() []twoBitCase {
	return []twoBitCase{
		{
			name: "TQ2_0", c: TQ2_0, fast: decodeTQ2, generic: decodeTQ2Generic, active: useAVX2,
			elems: 256, ks: []int{256, 512, 768, 2560, 6912},
			codeAt: func(f int) (int, uint) {
				b, e := f/256, f%256
				return b*66 + e/128*32 + e%32, uint(2 * (e % 128 / 32))
			},
		},
		{
			name: "I2_S", c: I2S, fast: decodeI2S, generic: decodeI2SGeneric, active: useAVX2,
			elems: 128, ks: []int{128, 256, 384, 2560, 6912},
			codeAt: func(f int) (int, uint) {
				return f/128*32 + f%32, uint(6 - 2*(f%128/32))
			},
		},
		{
			name: "Q2_0", c: Q2_0, fast: decodeQ2, generic: decodeQ2Generic, active: useBMI2,
			elems: 64, ks: []int{64, 128, 192, 2560, 6912},
			codeAt: func(f int) (int, uint) {
				b, j := f/64, f%64
				return b*18 + 2 + j/4, uint(2 * (j % 4))
			},
		},
	}
}

// fillCodes writes code(f) for every weight f of n into the code positions of
// src (scales and tails keep what src holds).
func (tc *twoBitCase) fillCodes(src []byte, n int, code func(f int) byte) {
	for f := range n {
		i, sh := tc.codeAt(f)
		src[i] = src[i]&^(3<<sh) | code(f)<<sh
	}
}

// codePatterns are the code streams the tests run: each maps a flat weight
// index to a code 0..3.
func codePatterns(rng *rand.Rand, n int) map[string]func(f int) byte {
	rnd := make([]byte, n)
	for i := range rnd {
		rnd[i] = byte(rng.IntN(4))
	}
	tern := make([]byte, n)
	for i := range tern {
		tern[i] = byte(rng.IntN(3))
	}
	sparse3 := slices.Clone(tern)
	for i := 0; n > 0 && i <= n/5000; i++ {
		sparse3[rng.IntN(n)] = 3
	}
	last3 := slices.Clone(tern)
	if n > 0 {
		last3[n-1] = 3
	}
	return map[string]func(f int) byte{
		"random":   func(f int) byte { return rnd[f] },
		"ternary":  func(f int) byte { return tern[f] },
		"sparse3":  func(f int) byte { return sparse3[f] },
		"last3":    func(f int) byte { return last3[f] },
		"first3":   func(f int) byte { return map[bool]byte{true: 3, false: tern[f]}[f == 0] },
		"allzero":  func(int) byte { return 1 },
		"allneg":   func(int) byte { return 0 },
		"allpos":   func(int) byte { return 2 },
		"all3":     func(int) byte { return 3 },
		"stripes":  func(f int) byte { return byte(f % 3) },
		"groups":   func(f int) byte { return byte(f / 32 % 4) },
		"alt3pos1": func(f int) byte { return byte(3 - f%2) },
	}
}

// refPlanes decodes the codes weight by weight: planes, and the flat index
// of the first code 3 (-1 if none).
func (tc *twoBitCase) refPlanes(src []byte, k, rows int) (*Planes, int) {
	p := &Planes{}
	p.Reset(k, rows)
	first := -1
	for f := range k * rows {
		i, sh := tc.codeAt(f)
		code := src[i] >> sh & 3
		if code == 3 && first < 0 {
			first = f
		}
		v := int8(code) - 1
		if code == 3 {
			v = 1 // code 3 reads as present, not negative
		}
		p.Set(f/k, f%k, v)
	}
	return p, first
}

func TestDecodeFastPathTwins(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, tc := range twoBitCases() {
		t.Logf("%s: fast path active: %v", tc.name, tc.active)
		for _, k := range tc.ks {
			for _, rows := range []int{0, 1, 2, 3, 5} {
				n := k * rows
				size := tc.c.TensorBytes(k, rows)
				words := n / 64
				for name, code := range codePatterns(rng, n) {
					src := make([]byte, size)
					for i := range src {
						src[i] = byte(rng.Uint32()) // scales, tails: noise
					}
					tc.fillCodes(src, n, code)
					label := fmt.Sprintf("%s %dx%d %s", tc.name, rows, k, name)

					// Fast path vs twin, on outputs pre-filled with
					// different garbage: every word must be written.
					p1, n1 := make([]uint64, words), make([]uint64, words)
					p2, n2 := make([]uint64, words), make([]uint64, words)
					for i := range p1 {
						p1[i], n1[i] = rng.Uint64(), rng.Uint64()
						p2[i], n2[i] = ^p1[i], ^n1[i]
					}
					bad1 := tc.fast(p1, n1, src)
					bad2 := tc.generic(p2, n2, src)
					if bad1 != bad2 {
						t.Fatalf("%s: code-3 flag fast %v, generic %v", label, bad1, bad2)
					}
					if !slices.Equal(p1, p2) || !slices.Equal(n1, n2) {
						for i := range p1 {
							if p1[i] != p2[i] || n1[i] != n2[i] {
								t.Fatalf("%s: word %d: fast %016x/%016x, generic %016x/%016x",
									label, i, p1[i], n1[i], p2[i], n2[i])
							}
						}
					}

					// Whole Decode vs the weight-by-weight reference.
					ref, first := tc.refPlanes(src, k, rows)
					if bad1 != (first >= 0) {
						t.Fatalf("%s: code-3 flag %v, reference first code 3 at %d", label, bad1, first)
					}
					var p Planes
					var s Scales
					err := tc.c.Decode(src, k, rows, &p, &s)
					if first < 0 {
						if err != nil {
							t.Fatalf("%s: %v", label, err)
						}
					} else {
						var nt *NotTernaryError
						if !errors.As(err, &nt) || nt.Row != first/k || nt.Elem != first%k || nt.Code != 3 {
							t.Fatalf("%s: got %v, want code 3 at row %d elem %d", label, err, first/k, first%k)
						}
					}
					samePlanes(t, &p, ref)
					if !slices.Equal(p.Present, p1) || !slices.Equal(p.Neg, n1) {
						t.Fatalf("%s: Decode planes differ from the fast path's", label)
					}
				}
			}
		}
	}
}

// TestDecodeFastPathScales: the scales and tails Decode extracts beside the
// fast path are the bytes of the source.
func TestDecodeFastPathScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, tc := range twoBitCases() {
		k, rows := 2560, 3
		src := make([]byte, tc.c.TensorBytes(k, rows))
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		tc.fillCodes(src, k*rows, func(int) byte { return byte(rng.IntN(3)) })
		var p Planes
		var s Scales
		if err := tc.c.Decode(src, k, rows, &p, &s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		out := make([]byte, len(src))
		if err := tc.c.Encode(&p, &s, out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(out, src) {
			t.Fatalf("%s: Encode(Decode(x)) != x", tc.name)
		}
	}
}

// BenchmarkDecodeCodes compares the fast path with the pure-Go twin on
// tensors of 2560-weight rows (z = 0.42): 16 rows (about 10 KiB of codes,
// cache-resident) and 2048 rows (1.3 MB); MB/s counts input bytes.
func BenchmarkDecodeCodes(b *testing.B) {
	const k = 2560
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range twoBitCases() {
		for _, rows := range []int{16, 2048} {
			src := make([]byte, tc.c.TensorBytes(k, rows))
			sc := &Scales{Group: tc.c.ScaleGroup()}
			if g := tc.c.ScaleGroup(); g > 0 {
				sc.F16 = make([]uint16, k*rows/g)
			}
			if err := tc.c.Encode(stockPlanesOf(stockCodes(rng, k*rows, 0.42), k, rows), sc, src); err != nil {
				b.Fatal(err)
			}
			pres, neg := make([]uint64, k*rows/64), make([]uint64, k*rows/64)
			for _, impl := range []struct {
				name string
				f    func(pres, neg []uint64, src []byte) bool
			}{{"fast", tc.fast}, {"go", tc.generic}} {
				b.Run(fmt.Sprintf("%s/rows=%d/%s", tc.name, rows, impl.name), func(b *testing.B) {
					b.SetBytes(int64(len(src)))
					for b.Loop() {
						if impl.f(pres, neg, src) {
							b.Fatal("code 3")
						}
					}
				})
			}
		}
	}
}
