package kernels

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// The builds of c/bitcos_layout.c the tests run: scalar (the scalar row
// decode and the portable popcount) always, avx2 (the pdep decode of
// bitcos_codes.c and the compiler's popcount) where this build and CPU can.
func layoutBuilds(t *testing.T) []bool {
	t.Helper()
	v := cVariant{name: "bitcos_layout on codes_avx2"}.simd(ckern.CodesCompiledAVX2(),
		cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT, cpuid.FMA3), "scalar build", "AVX2/BMI2/F16C/POPCNT/FMA")
	notRun(t, []cVariant{v})
	if v.why != "" {
		return []bool{true}
	}
	return []bool{true, false}
}

func buildName(scalar bool) string {
	if scalar {
		return "scalar"
	}
	return "avx2"
}

// everyValuePlanes: rows of k weights where, over any three consecutive
// rows, each position holds -1, 0 and +1 once (value (j + r) % 3 - 1), so
// every code reaches every bit position of a TQ2_0 block.
func everyValuePlanes(k, rows int) *format.Planes {
	p := &format.Planes{}
	p.Reset(k, rows)
	for r := range rows {
		for j := range k {
			if v := int8((j+r)%3 - 1); v != 0 {
				p.Set(r, j, v)
			}
		}
	}
	return p
}

// layoutScales: randomScales plus the fp16 bit patterns a conversion must
// carry unchanged even though no sane model has them (inf, nan, -0, the
// largest finite, the smallest subnormal).
func layoutScales(rng *rand.Rand, n int) []uint16 {
	d := randomScales(rng, n)
	special := []uint16{0x7c00, 0xfc00, 0x7e00, 0xffff, 0x8000, 0x7bff, 0x0001}
	for i := range d {
		if rng.IntN(8) == 0 {
			d[i] = special[rng.IntN(len(special))]
		}
	}
	return d
}

func index32(off []uint32) []int32 {
	idx := make([]int32, len(off))
	for i, o := range off {
		idx[i] = int32(o)
	}
	return idx
}

// TestToTQ2_0: bitcos_to_tq2_0 writes, byte for byte, what the Go TQ2_0
// encoder (format.TQ2_0, the bytes of ggml's quantize_row_tq2_0_ref) writes
// for the same ternary values and fp16 scales, and with a per-tensor f32
// scale the f32 blocks of the same codes: out of place and in place (the
// bitmap at the tail of the block-sized buffer, as ggml-cpu's
// bitcos-layout.cpp holds it); and bitcos_row_from_tq2_0 gives back each
// row's bitmap, sign stream and scales, bitcos_row_presence_tq2_0 its bitmap.
func TestToTQ2_0(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(12, 66))
	for _, tc := range conversionCases {
		p := tc.planes(rng)
		bitmap, signs, off := encodeRows(t, p)
		index := index32(off)
		d16 := layoutScales(rng, tc.rows*tc.k/QK_K)
		tq2 := make([]byte, tc.rows*tc.k/QK_K*66)
		if err := format.TQ2_0.Encode(p, &format.Scales{Group: QK_K, F16: d16}, tq2); err != nil {
			t.Fatal(err)
		}
		// f32 blocks: the same codes, a per-tensor f32 scale (an I2_S
		// source's; its bits, a subnormal in one case) in every block
		d32 := []float32{0.0416, math.Float32frombits(0x00000f0f)}[tc.rows%2]
		for _, f32 := range []bool{false, true} {
			want, bb, sd16 := tq2, 66, d16
			if f32 {
				want, bb, sd16 = F32Blocks(tq2, d32), 68, nil
			}
			for _, scalar := range layoutBuilds(t) {
				name := fmt.Sprintf("%s %s f32 %v", tc.name, buildName(scalar), f32)
				if bad := ckern.CheckRows(scalar, tc.k, tc.rows, bitmap, index, int64(len(signs))); bad != -1 {
					t.Fatalf("%s: bitcos_check_rows rejects a valid index at row %d", name, bad)
				}

				got := bytes.Repeat([]byte{0xa5}, len(want))
				if bad := ckern.ToTQ2_0(scalar, tc.k, tc.rows, got, bitmap, index, signs, sd16, d32); bad != -1 {
					t.Fatalf("%s: bitcos_to_tq2_0 returned %d", name, bad)
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s: out of place: byte %d (block %d, offset %d) is %#02x, TQ2_0 encoder %#02x", name, i, i/bb, i%bb, got[i], want[i])
				}

				buf := bytes.Repeat([]byte{0x5a}, len(want))
				tail := buf[len(buf)-len(bitmap):]
				copy(tail, bitmap)
				if bad := ckern.ToTQ2_0(scalar, tc.k, tc.rows, buf, tail, index, signs, sd16, d32); bad != -1 {
					t.Fatalf("%s: in place: bitcos_to_tq2_0 returned %d", name, bad)
				}
				if i := firstDiff(buf, want); i >= 0 {
					t.Fatalf("%s: in place: byte %d (block %d, offset %d) is %#02x, TQ2_0 encoder %#02x", name, i, i/bb, i%bb, buf[i], want[i])
				}

				rb, rs, rd := make([]byte, tc.k/8), make([]byte, tc.k/8), make([]uint16, tc.k/QK_K)
				rowTQ := tc.k / QK_K * bb
				for r := range tc.rows {
					pb := bytes.Repeat([]byte{0x3c}, tc.k/8)
					ckern.RowPresenceTQ2_0(scalar, tc.k, want[r*rowTQ:(r+1)*rowTQ], f32, pb)
					if i := firstDiff(pb, bitmap[r*tc.k/8:(r+1)*tc.k/8]); i >= 0 {
						t.Fatalf("%s: bitcos_row_presence_tq2_0 row %d: bitmap byte %d is %#02x, want %#02x", name, r, i, pb[i], bitmap[r*tc.k/8+i])
					}
					n, gd32 := ckern.RowFromTQ2_0(scalar, tc.k, want[r*rowTQ:(r+1)*rowTQ], f32, rb, rs, rd)
					scalesOK := slices.Equal(rd, d16[r*tc.k/QK_K:(r+1)*tc.k/QK_K])
					if f32 {
						scalesOK = math.Float32bits(gd32) == math.Float32bits(d32)
					}
					if n != int(off[r+1]-off[r]) || !bytes.Equal(rb, bitmap[r*tc.k/8:(r+1)*tc.k/8]) ||
						!bytes.Equal(rs[:n], signs[off[r]:off[r+1]]) || !scalesOK {
						t.Fatalf("%s: bitcos_row_from_tq2_0 row %d: %d sign bytes (want %d), bitmap equal %v, signs equal %v, scales equal %v", name, r,
							n, off[r+1]-off[r], bytes.Equal(rb, bitmap[r*tc.k/8:(r+1)*tc.k/8]),
							n == int(off[r+1]-off[r]) && bytes.Equal(rs[:n], signs[off[r]:off[r+1]]), scalesOK)
					}
				}
			}
		}
	}
}

// conversionCases: the weights every conversion out of BITCOS is tested on
// (layout_test.go, transcode_test.go).
var conversionCases = []conversionCase{
	{"every value 256x3", 256, 3, true},
	{"every value 2560x7", 2560, 7, true},
	{"one block", 256, 1, false},
	{"2560x12", 2560, 12, false},
	{"6912x5", 6912, 5, false},
	{"experts 512x(64*4)", 512, 256, false},
}

type conversionCase struct {
	name    string
	k, rows int
	every   bool // everyValuePlanes instead of random densities
}

func (tc conversionCase) planes(rng *rand.Rand) *format.Planes {
	if tc.every {
		return everyValuePlanes(tc.k, tc.rows)
	}
	return randomPlanes(rng, tc.k, tc.rows, []float64{0, 0.3, 0.42, 0.52, 0.9, 1})
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestCheckRows: bitcos_check_rows names the first row whose index entry
// disagrees with the bitmap or leaves the sign stream (the loader's
// check_bitcos_index, patch 0003), and bitcos_to_tq2_0 then writes nothing.
func TestCheckRows(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(3, 12))
	const k, rows = 2560, 9
	p := randomPlanes(rng, k, rows, []float64{0.2, 0.42, 1, 0.5})
	bitmap, signs, off := encodeRows(t, p)
	d16 := layoutScales(rng, rows*k/QK_K)
	for _, tc := range []struct {
		name   string
		edit   func(idx []int32) int64 // edits the index, returns the sign stream's size
		badRow int64
	}{
		{"valid", func([]int32) int64 { return int64(len(signs)) }, -1},
		{"valid, larger stream", func([]int32) int64 { return int64(len(signs)) + 100 }, -1},
		{"starts at 1", func(idx []int32) int64 {
			for i := range idx {
				idx[i]++
			}
			return int64(len(signs))
		}, 0},
		{"row 4 one byte long", func(idx []int32) int64 {
			for i := 5; i < len(idx); i++ {
				idx[i]++
			}
			return int64(len(signs)) + 1
		}, 4},
		{"row 3 ends at 1e6", func(idx []int32) int64 { idx[4] = 1000000; return int64(len(signs)) }, 3},
		{"row 6 negative", func(idx []int32) int64 { idx[7] = -8; return int64(len(signs)) }, 6},
		{"row 1 at the int32 extremes", func(idx []int32) int64 { idx[2] = -0x80000000; idx[3] = 0x7fffffff; return int64(len(signs)) }, 1},
		{"tail cut by one byte", func([]int32) int64 { return int64(len(signs)) - 1 }, rows - 1},
	} {
		for _, scalar := range layoutBuilds(t) {
			idx := index32(off)
			size := tc.edit(idx)
			if got := ckern.CheckRows(scalar, k, rows, bitmap, idx, size); got != tc.badRow {
				t.Errorf("%s %s: bitcos_check_rows = %d, want %d", tc.name, buildName(scalar), got, tc.badRow)
			}
			if tc.badRow < 0 {
				continue
			}
			// bitcos_to_tq2_0 reads the stream's size from the slice
			s := make([]byte, size)
			copy(s, signs)
			dst := bytes.Repeat([]byte{0xc3}, rows*k/QK_K*66)
			if got := ckern.ToTQ2_0(scalar, k, rows, dst, bitmap, idx, s, d16, 0); got != tc.badRow {
				t.Errorf("%s %s: bitcos_to_tq2_0 = %d, want %d", tc.name, buildName(scalar), got, tc.badRow)
			}
			if bytes.Count(dst, []byte{0xc3}) != len(dst) {
				t.Errorf("%s %s: bitcos_to_tq2_0 wrote with a bad index", tc.name, buildName(scalar))
			}
		}
	}
}
