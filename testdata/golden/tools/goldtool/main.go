// Command goldtool makes and extracts the golden fixtures in testdata/golden
// (see ../../README.md). It lives under testdata so that ./... ignores it;
// run it explicitly: go run ./testdata/golden/tools/goldtool SUBCOMMAND ...
//
//	goldtool edge OUT.bin                 write the crafted f32 edge-case rows
//	goldtool f32head IN.gguf OUT.gguf [ROWS.bin]
//	                                      copy IN with token_embd.weight made
//	                                      F32: its first rows from ROWS.bin,
//	                                      the others random (seeded) f32
//	goldtool extract IN.gguf ROWS OUT.bin write the first ROWS rows of
//	                                      token_embd.weight's raw bytes
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

const rowLen = 256

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "goldtool:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "edge":
		rows := edgeRows()
		buf := make([]byte, 4*rowLen*len(rows))
		for r, row := range rows {
			for i, v := range row {
				binary.LittleEndian.PutUint32(buf[4*(r*rowLen+i):], math.Float32bits(v))
			}
		}
		return os.WriteFile(args[1], buf, 0o644)
	case (len(args) == 3 || len(args) == 4) && args[0] == "f32head":
		var rows []byte
		if len(args) == 4 {
			var err error
			if rows, err = os.ReadFile(args[3]); err != nil {
				return err
			}
		}
		return f32Head(args[1], args[2], rows)
	case len(args) == 4 && args[0] == "extract":
		nrows, err := strconv.Atoi(args[2])
		if err != nil {
			return err
		}
		f, err := ggufx.Open(args[1])
		if err != nil {
			return err
		}
		defer f.Close()
		i, ok := f.Tensor("token_embd.weight")
		if !ok {
			return fmt.Errorf("%s: no token_embd.weight", args[1])
		}
		t := f.Tensors[i]
		rb, err := ggufx.RowBytes(t.Type, t.Dims[0])
		if err != nil {
			return err
		}
		data, err := f.ReadTensor(i, nil)
		if err != nil {
			return err
		}
		n := uint64(nrows) * rb
		if n > uint64(len(data)) {
			return fmt.Errorf("%d rows > tensor", nrows)
		}
		fmt.Printf("%s: token_embd.weight %v %v, %d rows of %d bytes\n", args[1], t.Type, t.Dims, nrows, rb)
		return os.WriteFile(args[3], data[:n], 0o644)
	}
	return fmt.Errorf("usage: goldtool edge OUT.bin | f32head IN.gguf OUT.gguf [ROWS.bin] | extract IN.gguf ROWS OUT.bin")
}

// f32Head writes in's model to out with token_embd.weight retyped F32 (the
// generator's --head f32 is ignored at the time of writing: F32 is ggml type
// 0, which modelgen takes for "unset"). Its data starts with rows and is
// filled with f32 values drawn like modelgen's F32 embedding (random sign and
// mantissa, magnitude in [1/32, 1/16)).
func f32Head(in, out string, rows []byte) error {
	f, err := ggufx.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	ti, ok := f.Tensor("token_embd.weight")
	if !ok {
		return fmt.Errorf("%s: no token_embd.weight", in)
	}
	h := ggufx.HeaderFromFile(f)
	h.Tensors[ti].Type = ggufx.TypeF32
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	defer o.Close()
	w, err := ggufx.NewWriter(o, h)
	if err != nil {
		return err
	}
	for i := range f.Tensors {
		if i != ti {
			data, err := f.ReadTensor(i, nil)
			if err != nil {
				return err
			}
			if _, err := w.Write(data); err != nil {
				return err
			}
			continue
		}
		n := f.Tensors[i].Elements() * 4
		if uint64(len(rows)) > n {
			return fmt.Errorf("%d bytes of rows > %d", len(rows), n)
		}
		data := make([]byte, n)
		rng := rand.New(rand.NewPCG(1, 4))
		for j := 0; j < len(data); j += 8 {
			binary.LittleEndian.PutUint64(data[j:], rng.Uint64()&0x807FFFFF807FFFFF|0x3D0000003D000000)
		}
		copy(data, rows)
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return o.Close()
}

// edgeRows returns 64 deterministic rows of 256 f32 edge cases, all finite
// and small enough that no f16 block scale overflows (llama-quantize
// rejects a non-finite scale).
func edgeRows() [][]float32 {
	e := &edgeSet{rng: rand.New(rand.NewPCG(2026, 11))}
	e.zeros()
	e.outliers()
	e.tiny()
	e.grids()
	e.offsets()
	e.sparse()
	e.scales()
	e.gaussians()
	return e.rows
}

// edgeSet gathers edgeRows' rows, each method a group of them in order; all
// draw from one random stream, so the order of the calls and of the rows
// within them fixes every value.
type edgeSet struct {
	rng  *rand.Rand
	rows [][]float32
}

// negz is -0.
var negz = float32(math.Copysign(0, -1))

// gauss draws a gaussian of standard deviation s.
func (e *edgeSet) gauss(s float64) float32 { return float32(e.rng.NormFloat64() * s) }

// add appends a row of rowLen values f(0), f(1), ..., in that order.
func (e *edgeSet) add(f func(i int) float32) {
	row := make([]float32, rowLen)
	for i := range row {
		row[i] = f(i)
	}
	e.rows = append(e.rows, row)
}

// zeros adds rows 0-2: +0, -0 and a mix of both.
func (e *edgeSet) zeros() {
	e.add(func(int) float32 { return 0 })    // 0 all +0
	e.add(func(int) float32 { return negz }) // 1 all -0
	e.add(func(i int) float32 {              // 2 +-0 mix
		if i%3 == 0 {
			return negz
		}
		return 0
	})
}

// outliers adds rows 3-8: one huge value, one sign, constants (per row and
// per 32).
func (e *edgeSet) outliers() {
	e.add(func(i int) float32 { // 3 one huge positive value
		if i == 77 {
			return 3e6
		}
		return e.gauss(0.01)
	})
	e.add(func(i int) float32 { // 4 one huge negative value (negative max)
		if i == 200 {
			return -1e5
		}
		return e.gauss(0.02)
	})
	e.add(func(int) float32 { return -float32(e.rng.Float64()) - 0.001 }) // 5 all negative
	e.add(func(int) float32 { return 1 })                                 // 6 constant +1
	e.add(func(int) float32 { return -1 })                                // 7 constant -1
	c := float32(0)
	e.add(func(i int) float32 { // 8 constant per 32 (q8_0 / q4_K sub-block)
		if i%32 == 0 {
			c = e.gauss(1)
		}
		return c
	})
}

// tiny adds rows 9-12: f32 denormals, and values whose f16 scales flush to
// 0 or are subnormal.
func (e *edgeSet) tiny() {
	e.add(func(int) float32 { return math.Float32frombits(e.rng.Uint32() & 0x807FFFFF) }) // 9 f32 denormals
	e.add(func(i int) float32 {                                                           // 10 denormals and small normals
		if i%2 == 0 {
			return math.Float32frombits(e.rng.Uint32() & 0x807FFFFF)
		}
		return e.gauss(1e-3)
	})
	e.add(func(int) float32 { return e.gauss(1e-20) }) // 11 below f16 range: scales flush to 0
	e.add(func(int) float32 { return e.gauss(1e-6) })  // 12 f16-subnormal scales
}

// grids adds rows 13-16: half integers, q8_0 ties, integers and a ramp.
func (e *edgeSet) grids() {
	e.add(func(i int) float32 { return float32(i%64-32) / 2 }) // 13 half integers -16..15.5
	e.add(func(i int) float32 {                                // 14 q8_0 ties: amax 127 so d = 1, x.5 values
		switch i % 32 {
		case 0:
			return 127
		case 1:
			return -127
		}
		return float32(i%32-16) + 0.5
	})
	e.add(func(i int) float32 { return float32(i%31 - 15) })                  // 15 integers -15..15
	e.add(func(i int) float32 { return -1 + 2*float32(i)/float32(rowLen-1) }) // 16 ramp
}

// offsets adds rows 17-19: all positive, and offset away from 0 either way.
func (e *edgeSet) offsets() {
	e.add(func(int) float32 { return float32(e.rng.Float64()) })      // 17 all positive
	e.add(func(int) float32 { return 5 + float32(e.rng.Float64()) })  // 18 positive offset
	e.add(func(int) float32 { return -6 + float32(e.rng.Float64()) }) // 19 negative offset
}

// sparse adds rows 20-23: mostly zeros, and two-valued rows.
func (e *edgeSet) sparse() {
	e.add(func(i int) float32 { // 20 one nonzero per 16
		if i%16 == 5 {
			return e.gauss(1)
		}
		return 0
	})
	e.add(func(i int) float32 { // 21 one nonzero in the row
		if i == 131 {
			return -0.75
		}
		return 0
	})
	e.add(func(i int) float32 { // 22 alternating +-a
		if i%2 == 0 {
			return 0.5
		}
		return -0.5
	})
	e.add(func(i int) float32 { // 23 two magnitudes, opposite signs, per 16
		if i%16 < 8 {
			return 0.3
		}
		return -0.29
	})
}

// scales adds rows 24-31: f16 extremes and beyond, a heavy tail, scales
// that vary within a row, +-0 with a few small values, and the values
// nearest_int sees at .5.
func (e *edgeSet) scales() {
	e.add(func(i int) float32 { // 24 f16 extremes
		switch i % 4 {
		case 0:
			return 65504
		case 1:
			return -65504
		case 2:
			return 6.1035156e-05 // smallest normal f16
		}
		return 5.9604645e-08 // smallest subnormal f16
	})
	e.add(func(int) float32 { return e.gauss(3e5) })                                            // 25 beyond f16 range
	e.add(func(int) float32 { return float32(e.rng.NormFloat64() / (e.rng.Float64() + 0.01)) }) // 26 heavy tail
	e.add(func(i int) float32 {                                                                 // 27 tiny values and one big per row
		if i == 3 {
			return 10
		}
		return e.gauss(1e-3)
	})
	e.add(func(i int) float32 { // 28 sub-block scales 10^(j-4)
		return e.gauss(math.Pow(10, float64(i/32-4)))
	})
	e.add(func(i int) float32 { // 29 scales 10^(j-10) per 16 weights (q6_K sub-blocks)
		return e.gauss(math.Pow(10, float64(i/16-10)))
	})
	e.add(func(i int) float32 { // 30 +-0 with a few +-1e-3
		if i%7 == 0 {
			return float32(i%3-1) * 1e-3
		}
		if i%2 == 0 {
			return negz
		}
		return 0
	})
	e.add(func(i int) float32 { // 31 values nearest_int sees at .5: 32/x grid
		return float32(i%32+1) / 64
	})
}

// gaussians adds rows 32-63: gaussians at scales 1e-7 .. 1e4.
func (e *edgeSet) gaussians() {
	for len(e.rows) < 64 { // 32..63 gaussians at scales 1e-7 .. 1e4
		s := math.Pow(10, -7+11*float64(len(e.rows)-32)/31)
		e.add(func(int) float32 { return e.gauss(s) })
	}
}
