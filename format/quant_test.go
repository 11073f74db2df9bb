package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// quantOrder lists the head types in a fixed order for table-driven tests.
var quantOrder = []string{"q8_0", "q6_K", "q4_K"}

func f32sFromBytes(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

func quantize(t testing.TB, h HeadType, x []float32) []byte {
	t.Helper()
	n := h.Bytes(len(x))
	if n < 0 {
		t.Fatalf("%s: %d weights", h.Name, len(x))
	}
	dst := make([]byte, n)
	for i := range dst {
		dst[i] = 0xA5 // every byte must be written
	}
	h.Quantize(x, dst)
	return dst
}

func dequantize(h HeadType, q []byte, n int) []float32 {
	y := make([]float32, n)
	h.Dequantize(q, y)
	return y
}

// quantErrBound bounds |x - dequantize(quantize(x))| over one block (Q8_0)
// or super-block (K-quants) whose largest magnitude is amax. The relative
// part comes from the format (Q8_0: half a step plus the f16 rounding of d
// times 127; K-quants: a generous multiple of what adversarial and random
// inputs reach, see TestQuantRoundTrip), the absolute part from f16 scales
// that round to subnormals or flush to zero for tiny inputs.
func quantErrBound(name string, amax float64) float64 {
	switch name {
	case "q8_0":
		d := amax / 127
		return 0.5*d + 127*math.Max(d*0x1p-11, 0x1p-25) + amax*1e-6
	case "q6_K":
		return amax/16 + 4096*0x1p-24
	default:
		return amax/4 + 1024*0x1p-24
	}
}

// checkQuantErr checks the round trip of x (finite, with block scales in
// f16 range) against quantErrBound.
func checkQuantErr(t testing.TB, h HeadType, x []float32, what string) {
	t.Helper()
	y := dequantize(h, quantize(t, h, x), len(x))
	for b := 0; b < len(x); b += h.Block {
		var amax float64
		for _, v := range x[b : b+h.Block] {
			amax = math.Max(amax, math.Abs(float64(v)))
		}
		bound := quantErrBound(h.Name, amax)
		for i := b; i < b+h.Block; i++ {
			if e := math.Abs(float64(x[i]) - float64(y[i])); !(e <= bound) {
				t.Fatalf("%s %s: element %d: %g -> %g, error %g > bound %g (block amax %g)",
					h.Name, what, i, x[i], y[i], e, bound, amax)
			}
		}
	}
}

func TestQuantSizes(t *testing.T) {
	for _, c := range []struct {
		name       string
		n, want    int
		ggml       ggufx.GGMLType
		block, bpb int
	}{
		{"q8_0", 256, 272, 8, 32, 34},
		{"q6_K", 512, 420, 14, 256, 210},
		{"q4_K", 256, 144, 12, 256, 144},
	} {
		h, ok := LookupHeadType(c.name)
		if !ok || h.Name != c.name || h.GGMLType != c.ggml || h.Block != c.block || h.BlockBytes != c.bpb {
			t.Fatalf("%s: %+v %v", c.name, h, ok)
		}
		if got := h.Bytes(c.n); got != c.want {
			t.Errorf("%s.Bytes(%d) = %d, want %d", c.name, c.n, got, c.want)
		}
		if got := QuantBytes(c.name, c.n); got != c.want {
			t.Errorf("QuantBytes(%s, %d) = %d", c.name, c.n, got)
		}
		for _, bad := range []int{-c.block, c.block + 1, 16} {
			if h.Bytes(bad) != -1 {
				t.Errorf("%s.Bytes(%d) = %d, want -1", c.name, bad, h.Bytes(bad))
			}
		}
		if h.Bytes(0) != 0 {
			t.Errorf("%s.Bytes(0) = %d", c.name, h.Bytes(0))
		}
		h.Quantize(nil, nil) // zero blocks is fine
		for _, f := range []func(){
			func() { h.Quantize(make([]float32, c.block+1), make([]byte, c.bpb)) },
			func() { h.Quantize(make([]float32, c.block), make([]byte, c.bpb+1)) },
			func() { h.Dequantize(make([]byte, c.bpb), make([]float32, 2*c.block)) },
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic on a bad size", c.name)
					}
				}()
				f()
			}()
		}
	}
	if Q8_0Bytes(64) != 68 || Q6KBytes(256) != 210 || Q4KBytes(512) != 288 {
		t.Error("per-type size helpers")
	}
	for _, alias := range []string{"Q8_0", "q6_k", "Q4_K"} {
		if _, ok := LookupHeadType(alias); !ok {
			t.Errorf("LookupHeadType(%q) failed", alias)
		}
	}
	if _, ok := LookupHeadType("q5_K"); ok || QuantBytes("f16", 256) != -1 {
		t.Error("unknown type accepted")
	}
}

func TestQuantNearestInt(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want int32
	}{
		{0, 0}, {float32(math.Copysign(0, -1)), 0}, {0.5, 0}, {1.5, 2}, {2.5, 2}, {-0.5, 0},
		{-1.5, -2}, {-2.5, -2}, {0.49999997, 0}, {0.50000006, 1}, {3.4999998, 3},
		{-31.5, -32}, {31.5, 32}, {4194303, 4194303}, {-4194303, -4194303}, {1e-40, 0},
	} {
		if got := NearestInt(c.in); got != c.want {
			t.Errorf("nearest_int(%g) = %d, want %d", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := float32((rng.Float64()*2 - 1) * 4194303)
		if rng.IntN(2) == 0 {
			f = float32(rng.IntN(2000)-1000) / 2 // ties
		}
		if got, want := NearestInt(f), int32(math.RoundToEven(float64(f))); got != want {
			t.Fatalf("nearest_int(%g) = %d, want %d", f, got, want)
		}
	}
}

// refFP32ToFP16 transliterates ggml_compute_fp32_to_fp16 (ggml-impl.h at the
// pin), the conversion GGML_FP32_TO_FP16 uses in ggml-base.
func refFP32ToFP16(f float32) uint16 {
	const scaleToInf = float32(0x1.0p+112)
	const scaleToZero = float32(0x1.0p-110)
	base := float32(absF32(f)*scaleToInf) * scaleToZero
	w := math.Float32bits(f)
	shl1w := w + w
	sign := w & 0x80000000
	bias := shl1w & 0xFF000000
	if bias < 0x71000000 {
		bias = 0x71000000
	}
	base = math.Float32frombits((bias>>1)+0x07800000) + base
	bits := math.Float32bits(base)
	expBits := (bits >> 13) & 0x00007C00
	mantissaBits := bits & 0x00000FFF
	nonsign := expBits + mantissaBits
	if shl1w > 0xFF000000 {
		return uint16(sign>>16 | 0x7E00)
	}
	return uint16(sign>>16 | nonsign)
}

func TestQuantFP16MatchesGGML(t *testing.T) {
	check := func(b uint32) {
		f := math.Float32frombits(b)
		if got, want := ggmlFP32ToFP16(f), refFP32ToFP16(f); got != want {
			t.Fatalf("fp32 %#08x (%g): fp16 %#04x, ggml %#04x", b, f, got, want)
		}
	}
	step := uint32(97)
	if testing.Short() {
		step = 9973
	}
	for b := uint64(0); b < 1<<32; b += uint64(step) {
		check(uint32(b))
	}
	// Every f16 value, the midpoints between neighbours (ties to even) and
	// their f32 neighbours, both signs.
	for h := uint32(0); h < 0x7C00; h++ {
		f := ggmlFP16ToFP32(uint16(h))
		next := ggmlFP16ToFP32(uint16(h + 1))
		mid := math.Float32bits(float32((float64(f) + float64(next)) / 2))
		for _, b := range []uint32{math.Float32bits(f), mid - 1, mid, mid + 1} {
			check(b)
			check(b | 0x80000000)
		}
	}
	for _, b := range []uint32{0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x477FF000, 0x477FEFFF} {
		check(b)
	}
}

func TestQuantHandBuilt(t *testing.T) {
	// Q8_0: amax 127 gives d = 1 (f16 0x3C00) and id = 1; roundf rounds
	// halves away from zero: 2.5 -> 3, -1.5 -> -2, 126.5 -> 127.
	x := make([]float32, 32)
	copy(x, []float32{127, -127, 2.5, -2.5, 0.5, -0.5, 1.49, -1.5, 0, float32(math.Copysign(0, -1)), 126.5})
	want := make([]byte, 34)
	copy(want, []byte{0x00, 0x3c, 0x7f, 0x81, 0x03, 0xfd, 0x01, 0xff, 0x01, 0xfe, 0, 0, 0x7f})
	if got := quantize(t, HeadTypes["q8_0"], x); !bytes.Equal(got, want) {
		t.Errorf("q8_0:\n got %x\nwant %x", got, want)
	}

	ones := func(v float32) []float32 {
		x := make([]float32, QK_K)
		for i := range x {
			x[i] = v
		}
		return x
	}
	// Q6_K of all +1: every sub-block scale is -1/32 (l = -32 for all),
	// so iscale = 4096, d = 1/4096 (f16 0x0C00), scales = -128, and
	// x/(d*-128) = -32 -> L = 0. All -1 mirrors it with d = -1/4096.
	for _, c := range []struct {
		v float32
		d uint16
	}{{1, 0x0C00}, {-1, 0x8C00}} {
		want := make([]byte, Q6KBlockBytes)
		for i := 192; i < 208; i++ {
			want[i] = 0x80
		}
		binary.LittleEndian.PutUint16(want[208:], c.d)
		if got := quantize(t, HeadTypes["q6_K"], ones(c.v)); !bytes.Equal(got, want) {
			t.Errorf("q6_K of %v:\n got %x\nwant %x", c.v, got, want)
		}
	}

	// Q4_K of all +1: min is clamped to 0, scale = 1/15 for every
	// sub-block (no candidate has D > 0), ls = 63, lm = 0, so d =
	// f16(1/15/63) = 0x1456, dmin = 0, scales = ff ff ff ff 00 00 00 00
	// 0f 0f 0f 0f and every quant is 15.
	want = make([]byte, Q4KBlockBytes)
	copy(want, []byte{0x56, 0x14, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x0f, 0x0f, 0x0f, 0x0f})
	for i := 16; i < Q4KBlockBytes; i++ {
		want[i] = 0xff
	}
	if got := quantize(t, HeadTypes["q4_K"], ones(1)); !bytes.Equal(got, want) {
		t.Errorf("q4_K of 1:\n got %x\nwant %x", got, want)
	}
	// All -1: max == min, so L = 0, scale 0 and min 1 in every sub-block:
	// d = 0, dmin = f16(1/63) = 0x2410, mins 63 (ls 0), quants 0.
	want = make([]byte, Q4KBlockBytes)
	copy(want, []byte{0, 0, 0x10, 0x24, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xf0, 0xf0, 0xf0, 0xf0})
	if got := quantize(t, HeadTypes["q4_K"], ones(-1)); !bytes.Equal(got, want) {
		t.Errorf("q4_K of -1:\n got %x\nwant %x", got, want)
	}
	y := dequantize(HeadTypes["q4_K"], want, QK_K)
	if math.Abs(float64(y[0])+1) > 1e-3 || y[0] != y[255] {
		t.Errorf("q4_K of -1 decodes to %v", y[0])
	}
}

// edgeCases are 256-weight rows for the table-driven tests.
func edgeCases() []struct {
	name string
	x    []float32
} {
	rng := rand.New(rand.NewPCG(7, 7))
	negz := float32(math.Copysign(0, -1))
	var cases []struct {
		name string
		x    []float32
	}
	add := func(name string, f func(i int) float32) {
		x := make([]float32, QK_K)
		for i := range x {
			x[i] = f(i)
		}
		cases = append(cases, struct {
			name string
			x    []float32
		}{name, x})
	}
	add("zero", func(int) float32 { return 0 })
	add("negzero", func(int) float32 { return negz })
	add("mixed zeros", func(i int) float32 { return [2]float32{0, negz}[i%2] })
	add("one huge", func(i int) float32 {
		if i == 100 {
			return 5e5
		}
		return float32(rng.NormFloat64() * 0.01)
	})
	add("negative max", func(i int) float32 {
		if i%32 == 3 {
			return -4
		}
		return float32(rng.Float64())
	})
	add("all negative", func(int) float32 { return -1 - float32(rng.Float64()) })
	add("denormals", func(int) float32 { return math.Float32frombits(rng.Uint32() & 0x807FFFFF) })
	add("denormals and normals", func(i int) float32 {
		if i%2 == 0 {
			return math.Float32frombits(rng.Uint32() & 0x807FFFFF)
		}
		return float32(rng.NormFloat64())
	})
	add("tiny", func(int) float32 { return float32(rng.NormFloat64() * 1e-30) })
	add("f16 subnormal scales", func(int) float32 { return float32(rng.NormFloat64() * 1e-6) })
	add("halves", func(i int) float32 { return float32(i%64-32) / 2 })
	add("q8_0 ties", func(i int) float32 {
		if i%32 == 0 {
			return 127
		}
		return float32(i%32-16) + 0.5
	})
	add("constant", func(int) float32 { return 0.25 })
	add("constant negative", func(int) float32 { return -0.25 })
	add("positive offset", func(int) float32 { return 3 + float32(rng.Float64()) })
	add("one nonzero", func(i int) float32 {
		if i == 200 {
			return -2
		}
		return 0
	})
	add("alternating", func(i int) float32 { return float32(1 - 2*(i%2)) })
	add("sub-block dynamic range", func(i int) float32 { return float32(rng.NormFloat64() * math.Pow(10, float64(i/32-4))) })
	add("f16 max", func(i int) float32 { return [2]float32{65504, -65504}[i%2] })
	add("gaussian", func(int) float32 { return float32(rng.NormFloat64()) })
	return cases
}

func TestQuantEdgeCases(t *testing.T) {
	for _, c := range edgeCases() {
		for _, name := range quantOrder {
			h := HeadTypes[name]
			q := quantize(t, h, c.x)
			checkQuantErr(t, h, c.x, c.name)
			switch c.name {
			case "zero", "negzero", "mixed zeros":
				// An all-zero block quantizes to zero bytes (-0 included: its
				// |x| and d are +0, and roundf(-0) stores 0).
				if !bytes.Equal(q, make([]byte, len(q))) {
					t.Errorf("%s %s: %x", name, c.name, q)
				}
			case "tiny", "denormals":
				// Scales below f16 range flush to 0: everything decodes to 0.
				for i, v := range dequantize(h, q, len(c.x)) {
					if v != 0 {
						t.Fatalf("%s %s: element %d decodes to %g", name, c.name, i, v)
					}
				}
			case "negative max", "one nonzero":
				y := dequantize(h, q, len(c.x))
				for i, v := range c.x {
					if v < -1 && y[i] >= 0 {
						t.Errorf("%s %s: element %d = %g decodes to %g", name, c.name, i, v, y[i])
					}
				}
			case "q8_0 ties":
				if name == "q8_0" {
					// d = 1: qs are roundf(x) = away from zero.
					for j := range 32 {
						if want := int8(math.Round(float64(c.x[j]))); int8(q[2+j]) != want {
							t.Errorf("q8_0 ties: qs[%d] = %d, want %d", j, int8(q[2+j]), want)
						}
					}
				}
			}
		}
	}
}

func TestQuantRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, k = 6, 512
	x := make([]float32, rows*k)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 0.05)
	}
	// Relative RMSE ceilings: ~2x what Gaussian data gives.
	maxRel := map[string]float64{"q8_0": 0.012, "q6_K": 0.035, "q4_K": 0.14}
	for _, name := range quantOrder {
		h := HeadTypes[name]
		q := quantize(t, h, x)
		checkQuantErr(t, h, x, "gaussian rows")
		// Blocks are independent: row by row gives the same bytes.
		rb := h.Bytes(k)
		for r := range rows {
			if qr := quantize(t, h, x[r*k:(r+1)*k]); !bytes.Equal(qr, q[r*rb:(r+1)*rb]) {
				t.Errorf("%s: row %d differs when quantized alone", name, r)
			}
		}
		y := dequantize(h, q, len(x))
		var se, ss float64
		for i := range x {
			d := float64(x[i] - y[i])
			se += d * d
			ss += float64(x[i]) * float64(x[i])
		}
		if rel := math.Sqrt(se / ss); rel > maxRel[name] {
			t.Errorf("%s: relative RMSE %.4f > %.4f", name, rel, maxRel[name])
		}
		// Quantizing the dequantized values again is stable for Q8_0 (its
		// grid is kept); for all, the error does not grow by more than the
		// bound.
		if name == "q8_0" {
			if q2 := quantize(t, h, y); !bytes.Equal(q2, q) {
				t.Errorf("q8_0: requantizing the dequantized values changed bytes")
			}
		}
	}
}

// Golden fixtures produced by llama-quantize at the pin (see
// testdata/golden/README.md): for each input the first 64 rows of
// token_embd.weight and the same rows as llama-quantize wrote them.
func TestQuantGolden(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	for _, in := range []string{"f16", "bf16", "f32", "edge"} {
		raw, err := os.ReadFile(filepath.Join(dir, "in-"+in+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		var x []float32
		switch in {
		case "f16":
			x = make([]float32, len(raw)/2)
			F16ToF32(raw, x)
		case "bf16":
			x = make([]float32, len(raw)/2)
			BF16ToF32(raw, x)
		default:
			x = f32sFromBytes(raw)
		}
		if len(x) != 64*256 {
			t.Fatalf("in-%s.bin: %d values", in, len(x))
		}
		for _, name := range quantOrder {
			h := HeadTypes[name]
			want, err := os.ReadFile(filepath.Join(dir, in+"."+name+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			got := quantize(t, h, x)
			if len(got) != len(want) {
				t.Fatalf("%s from %s: %d bytes, golden %d", name, in, len(got), len(want))
			}
			for b := 0; b < len(got); b += h.BlockBytes {
				if !bytes.Equal(got[b:b+h.BlockBytes], want[b:b+h.BlockBytes]) {
					blk := b / h.BlockBytes
					t.Fatalf("%s from %s: block %d (row %d) differs from llama-quantize\n got %x\nwant %x",
						name, in, blk, blk*h.Block/256, got[b:b+h.BlockBytes], want[b:b+h.BlockBytes])
				}
			}
			checkQuantErr(t, h, x, "golden "+in)
		}
	}
}

// fuzzFloats turns fuzz bytes into n = block*(1+blocks%3) float32s: mode
// 0 reads f16 values scaled by scale, mode 1 raw f32 bits; data is tiled.
func fuzzFloats(data []byte, mode uint8, scale float32, block int, blocks uint8) []float32 {
	n := block * (1 + int(blocks%3))
	x := make([]float32, n)
	if len(data) < 4 {
		return x
	}
	for i := range x {
		if mode%2 == 0 {
			o := (2 * i) % (len(data) - 1)
			x[i] = ggmlFP16ToFP32(binary.LittleEndian.Uint16(data[o:])) * scale
		} else {
			o := (4 * i) % (len(data) - 3)
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[o:]))
		}
	}
	return x
}

func fuzzQuantize(t *testing.T, h HeadType, data []byte, mode uint8, scale float32, blocks uint8) {
	x := fuzzFloats(data, mode, scale, h.Block, blocks)
	// Neither must panic, whatever x holds.
	dequantize(h, quantize(t, h, x), len(x))
	// Bounds hold for finite input whose scales stay in f16 range.
	for _, v := range x {
		if !(math.Abs(float64(v)) <= 1e6) {
			return
		}
	}
	checkQuantErr(t, h, x, fmt.Sprintf("fuzz mode %d", mode))
}

func addQuantSeeds(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0}, uint8(0), float32(1), uint8(0))
	f.Add([]byte{0x00, 0x3c, 0x00, 0xbc, 0x55, 0x35, 0xff, 0x7b}, uint8(0), float32(1), uint8(1))
	f.Add([]byte{0x01, 0x00, 0x00, 0x80, 0xff, 0x03, 0x00, 0x04}, uint8(0), float32(1e-3), uint8(2))
	f.Add([]byte{0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xbf, 0x01, 0, 0, 0}, uint8(1), float32(0), uint8(0))
	f.Add([]byte{0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0x80, 0xff}, uint8(1), float32(0), uint8(1)) // NaN, -Inf
	f.Add([]byte("any bytes at all, tiled"), uint8(0), float32(3e4), uint8(2))
}

func FuzzQuantizeQ8_0(f *testing.F) {
	addQuantSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, scale float32, blocks uint8) {
		fuzzQuantize(t, HeadTypes["q8_0"], data, mode, scale, blocks)
	})
}

func FuzzQuantizeQ6K(f *testing.F) {
	addQuantSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, scale float32, blocks uint8) {
		fuzzQuantize(t, HeadTypes["q6_K"], data, mode, scale, blocks)
	})
}

func FuzzQuantizeQ4K(f *testing.F) {
	addQuantSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, scale float32, blocks uint8) {
		fuzzQuantize(t, HeadTypes["q4_K"], data, mode, scale, blocks)
	})
}
