package ggufx

import (
	"strconv"
	"strings"
	"testing"
)

func TestTypeTraits(t *testing.T) {
	// (block, bytes) as in gguf-py GGML_QUANT_SIZES at the pin.
	tests := []struct {
		t           GGMLType
		id          uint32
		name        string
		block, size int
	}{
		{TypeF32, 0, "f32", 1, 4},
		{TypeF16, 1, "f16", 1, 2},
		{TypeQ4_0, 2, "q4_0", 32, 18},
		{TypeQ4_1, 3, "q4_1", 32, 20},
		{TypeQ5_0, 6, "q5_0", 32, 22},
		{TypeQ5_1, 7, "q5_1", 32, 24},
		{TypeQ8_0, 8, "q8_0", 32, 34},
		{TypeQ8_1, 9, "q8_1", 32, 40},
		{TypeQ2_K, 10, "q2_K", 256, 84},
		{TypeQ3_K, 11, "q3_K", 256, 110},
		{TypeQ4_K, 12, "q4_K", 256, 144},
		{TypeQ5_K, 13, "q5_K", 256, 176},
		{TypeQ6_K, 14, "q6_K", 256, 210},
		{TypeQ8_K, 15, "q8_K", 256, 292},
		{TypeIQ2_XXS, 16, "iq2_xxs", 256, 66},
		{TypeIQ2_XS, 17, "iq2_xs", 256, 74},
		{TypeIQ3_XXS, 18, "iq3_xxs", 256, 98},
		{TypeIQ1_S, 19, "iq1_s", 256, 50},
		{TypeIQ4_NL, 20, "iq4_nl", 32, 18},
		{TypeIQ3_S, 21, "iq3_s", 256, 110},
		{TypeIQ2_S, 22, "iq2_s", 256, 82},
		{TypeIQ4_XS, 23, "iq4_xs", 256, 136},
		{TypeI8, 24, "i8", 1, 1},
		{TypeI16, 25, "i16", 1, 2},
		{TypeI32, 26, "i32", 1, 4},
		{TypeI64, 27, "i64", 1, 8},
		{TypeF64, 28, "f64", 1, 8},
		{TypeIQ1_M, 29, "iq1_m", 256, 56},
		{TypeBF16, 30, "bf16", 1, 2},
		{TypeTQ1_0, 34, "tq1_0", 256, 54},
		{TypeTQ2_0, 35, "tq2_0", 256, 66},
		{TypeI2_S, 36, "i2_s", 1, 1},
		{TypeMXFP4, 39, "mxfp4", 32, 17},
		{TypeNVFP4, 40, "nvfp4", 64, 36},
		{TypeQ1_0, 41, "q1_0", 128, 18},
		{TypeQ2_0, 42, "q2_0", 64, 18},
		{TypeBITCOS, 96, "bitcos", 128, 16},
	}
	for _, tc := range tests {
		if uint32(tc.t) != tc.id || tc.t.String() != tc.name || !tc.t.Known() ||
			tc.t.BlockSize() != tc.block || tc.t.TypeSize() != tc.size {
			t.Errorf("type %d: got id %d %q known=%v block %d size %d, want %q %d %d",
				tc.id, uint32(tc.t), tc.t, tc.t.Known(), tc.t.BlockSize(), tc.t.TypeSize(), tc.name, tc.block, tc.size)
		}
		if p, ok := ParseGGMLType(strings.ToUpper(tc.name)); !ok || p != tc.t {
			t.Errorf("ParseGGMLType(%q) = %v, %v", strings.ToUpper(tc.name), p, ok)
		}
	}
	if n := len(KnownTypes()); n != len(tests) {
		t.Errorf("KnownTypes has %d types, table %d", n, len(tests))
	}
	for _, id := range []uint32{4, 5, 31, 32, 33, 37, 38, 43, 95, 97, 200} {
		ty := GGMLType(id)
		if ty.Known() || ty.BlockSize() != 0 || ty.TypeSize() != 0 {
			t.Errorf("type %d should be unknown", id)
		}
		if want := "type(" + strconv.Itoa(int(id)) + ")"; ty.String() != want {
			t.Errorf("String() = %q, want %q", ty.String(), want)
		}
	}
}

func TestTensorBytes(t *testing.T) {
	tests := []struct {
		name string
		t    GGMLType
		dims []uint64
		want uint64
		err  string
	}{
		{"f32 scalar", TypeF32, nil, 4, ""},
		{"f16 matrix", TypeF16, []uint64{3, 5}, 30, ""},
		{"q8_0", TypeQ8_0, []uint64{64, 3}, 2 * 34 * 3, ""},
		{"tq2_0 2B", TypeTQ2_0, []uint64{2560, 6912}, 2560 / 256 * 66 * 6912, ""},
		{"tq1_0", TypeTQ1_0, []uint64{2560, 2560}, 10 * 54 * 2560, ""},
		{"q2_0", TypeQ2_0, []uint64{128, 2}, 2 * 18 * 2, ""},
		{"i2_s 2B", TypeI2_S, []uint64{2560, 6912}, 2560*6912/4 + 32, ""},
		{"i2_s small", TypeI2_S, []uint64{128, 1}, 32 + 32, ""},
		{"i2_s 3d", TypeI2_S, []uint64{256, 4, 2}, 256*4*2/4 + 32, ""},
		{"bitcos 2B", TypeBITCOS, []uint64{2560, 6912}, 2560 * 6912 / 8, ""},
		{"bitcos one block", TypeBITCOS, []uint64{128}, 16, ""},
		{"bitcos experts", TypeBITCOS, []uint64{1024, 3, 4}, 1024 / 8 * 12, ""},
		{"bitcos ne0 not 128", TypeBITCOS, []uint64{192, 2}, 0, "not a multiple of bitcos's block size 128"},
		{"q8_0 ne0 33", TypeQ8_0, []uint64{33}, 0, "ne0 = 33"},
		{"unknown 37", GGMLType(37), []uint64{32}, 0, "unknown ggml type id 37"},
		{"zero dim", TypeF32, []uint64{4, 0}, 0, "dimension 1 is 0"},
		{"dim above int64", TypeF32, []uint64{1 << 63}, 0, "larger than int64"},
		{"elements overflow", TypeF32, []uint64{1 << 32, 1 << 31}, 0, "2^63-1"},
		{"bytes overflow", TypeF64, []uint64{1 << 31, 1 << 31}, 0, "overflows uint64"},
	}
	for _, tc := range tests {
		got, err := TensorBytes(tc.t, tc.dims)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
}
