package kernels

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// TestToQ2_0: bitcos_to_q2_0 (c/bitcos_transcode.h) writes, byte for byte,
// what the Go Q2_0 encoder (format.Q2_0, the bytes of ggml's
// quantize_row_q2_0_ref) writes for the same ternary values with each
// 64-weight block's scale: from scales per 256 weights (TQ2_0 and TQ1_0
// sources: the four blocks of a group take its scale) and per 64 (Q2_0
// sources), on both row decodes; and a bad row index leaves dst untouched.
func TestToQ2_0(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(22, 18))
	for _, tc := range conversionCases {
		p := tc.planes(rng)
		bitmap, signs, off := encodeRows(t, p)
		index := index32(off)
		for _, group := range []int{256, 64} {
			d := layoutScales(rng, tc.rows*tc.k/group)
			// the scale of every 64-weight block, as Q2_0 holds it
			per64 := make([]uint16, tc.rows*tc.k/64)
			for i := range per64 {
				per64[i] = d[i*64/group]
			}
			want := make([]byte, tc.rows*tc.k/64*18)
			if err := format.Q2_0.Encode(p, &format.Scales{Group: 64, F16: per64}, want); err != nil {
				t.Fatal(err)
			}
			for _, scalar := range layoutBuilds(t) {
				name := fmt.Sprintf("%s, scales per %d, %s", tc.name, group, buildName(scalar))
				got := bytes.Repeat([]byte{0xa5}, len(want))
				if bad := ckern.ToQ2_0(scalar, tc.k, tc.rows, got, bitmap, index, signs, d, group); bad != -1 {
					t.Fatalf("%s: bitcos_to_q2_0 returned %d", name, bad)
				}
				if i := firstDiff(got, want); i >= 0 {
					t.Fatalf("%s: byte %d (block %d, offset %d) is %#02x, Q2_0 encoder %#02x", name, i, i/18, i%18, got[i], want[i])
				}
				// a row stream one byte too long at the last row
				badIndex := append([]int32(nil), index...)
				badIndex[tc.rows]++
				untouched := bytes.Repeat([]byte{0x5a}, len(want))
				if bad := ckern.ToQ2_0(scalar, tc.k, tc.rows, untouched, bitmap, badIndex, append(signs, 0), d, group); bad != int64(tc.rows-1) {
					t.Fatalf("%s: a bad last row: bitcos_to_q2_0 returned %d, want %d", name, bad, tc.rows-1)
				}
				if !bytes.Equal(untouched, bytes.Repeat([]byte{0x5a}, len(want))) {
					t.Fatalf("%s: bitcos_to_q2_0 wrote into dst after a failed check", name)
				}
			}
		}
	}
}

// TestSelectDeviceLayout: every branch of bitcos_select_device_layout
// (c/bitcos_select.h).
func TestSelectDeviceLayout(t *testing.T) {
	needCgo(t)
	str := func(s string) *string { return &s }
	all := ckern.DeviceCaps{Native: true, TQ2_0: true, Q2_0: true}
	metal := ckern.DeviceCaps{TQ2_0: true, Q2_0: true}
	cuda := ckern.DeviceCaps{Q2_0: true}
	none := ckern.DeviceCaps{}
	tests := []struct {
		name   string
		caps   ckern.DeviceCaps
		group  int
		forced *string
		want   string
		why    string
	}{
		{"native path", all, 256, nil, "native", "default: the backend runs BITCOS"},
		{"native path, f32 scale", ckern.DeviceCaps{Native: true}, 0, nil, "native", "default: the backend runs BITCOS"},
		{"native path, scales per 64", all, 64, nil, "q2_0", "scales are per 64, its Q2_0 blocks the Q2_0 file's bytes"},
		{"native path only, scales per 64", ckern.DeviceCaps{Native: true, TQ2_0: true}, 64, nil, "native", "default: the backend runs BITCOS"},
		{"forced native, scales per 64", all, 64, str("native"), "native", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"f32 scale, TQ2_0 and Q2_0 device", metal, 0, nil, "tq2_0", "runs TQ2_0; the per-tensor f32 scale rounded to fp16"},
		{"f32 scale, CUDA-like without native", cuda, 0, nil, "q2_0", "runs Q2_0; the per-tensor f32 scale rounded to fp16"},
		{"f32 scale, no ternary type", none, 0, nil, "host", "neither"},
		{"forced host, f32 scale", metal, 0, str("host"), "host", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"Metal-like", metal, 256, nil, "tq2_0", "runs TQ2_0"},
		{"Metal-like, scales per 64", metal, 64, nil, "q2_0", "runs Q2_0"},
		{"TQ2_0 only, scales per 64", ckern.DeviceCaps{TQ2_0: true}, 64, nil, "host", "neither"},
		{"CUDA-like", cuda, 256, nil, "q2_0", "runs Q2_0"},
		{"CUDA-like, scales per 64", cuda, 64, nil, "q2_0", "runs Q2_0"},
		{"no ternary type", none, 256, nil, "host", "neither BITCOS nor TQ2_0 nor Q2_0"},
		{"unknown group", cuda, 128, nil, "host", "neither"},
		{"forced q2_0 over native", all, 256, str("q2_0"), "q2_0", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"forced tq2_0 over native", all, 256, str("tq2_0"), "tq2_0", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"forced native", all, 256, str("native"), "native", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"forced q2_0 on Metal-like", metal, 256, str("q2_0"), "q2_0", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"forced tq2_0, device lacks it", cuda, 256, str("tq2_0"), "q2_0", "cannot take for the weight; default: the backend runs Q2_0"},
		{"forced tq2_0, scales per 64", metal, 64, str("tq2_0"), "q2_0", "cannot take for the weight; default: the backend runs Q2_0"},
		{"forced q2_0, f32 scale", all, 0, str("q2_0"), "q2_0", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"forced tq2_0, f32 scale, device lacks it", cuda, 0, str("tq2_0"), "q2_0", "cannot take for the weight; default: the backend runs Q2_0; the per-tensor f32 scale rounded"},
		{"forced native, device lacks it", metal, 256, str("native"), "tq2_0", "cannot take for the weight; default: the backend runs TQ2_0"},
		{"forced host over native", all, 256, str("host"), "host", "forced by GGML_BITCOS_DEVICE_LAYOUT"},
		{"unknown name", cuda, 256, str("Q2_0"), "q2_0", "unknown GGML_BITCOS_DEVICE_LAYOUT ignored; default: the backend runs Q2_0"},
		{"empty name", metal, 256, str(""), "tq2_0", "default: the backend runs TQ2_0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ckern.SelectDeviceLayout(tc.caps, tc.group, tc.forced)
			if c.Name != tc.want || !strings.Contains(c.Why, tc.why) || c.Name != ckern.DeviceLayoutName(c.Layout) {
				t.Errorf("caps %+v, group %d: got %s (%d, %q), want %s (reason containing %q)", tc.caps, tc.group, c.Name, c.Layout, c.Why, tc.want, tc.why)
			}
			if tc.forced == nil || *tc.forced == "" {
				if strings.Contains(c.Why, "GGML_BITCOS_DEVICE_LAYOUT") {
					t.Errorf("nothing forced, yet the reason mentions it: %q", c.Why)
				}
			}
		})
	}
	for l, want := range []string{"native", "tq2_0", "q2_0", "host"} {
		if got := ckern.DeviceLayoutName(l); got != want {
			t.Errorf("bitcos_device_layout_name(%d) = %q, want %q", l, got, want)
		}
	}
	if ckern.DeviceLayoutName(-1) != "" || ckern.DeviceLayoutName(4) != "" {
		t.Error("bitcos_device_layout_name out of range is not NULL")
	}
}
