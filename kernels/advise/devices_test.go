package advise

import (
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// The device note names, per scale kind, the layout the rule gives each
// backend: f32 scales native on CUDA and Vulkan, rounded into TQ2_0 blocks on
// Metal; fp16 per 256 transcoded on CUDA and Metal; per 64 Q2_0 blocks
// wherever the backend has no path for them.
func TestDeviceNote(t *testing.T) {
	if !ckern.Available {
		t.Skip("built without cgo: the device rule is C")
	}
	for _, tc := range []struct {
		group int
		want  []string
	}{
		{0, []string{"a per-tensor f32 scale", "CUDA/HIP: native", "Metal: tq2_0 (the backend runs TQ2_0; the per-tensor f32 scale rounded to fp16", "Vulkan: native", "SYCL: native"}},
		{256, []string{"fp16 scales per 256 weights", "CUDA/HIP: q2_0", "Metal: tq2_0", "Vulkan: native", "SYCL: native"}},
		{64, []string{"fp16 scales per 64 weights", "CUDA/HIP: q2_0", "Metal: q2_0", "Vulkan: q2_0 (the backend runs Q2_0; the weight's scales are per 64", "SYCL: q2_0"}},
	} {
		got := deviceNote(tc.group)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("group %d: %q lacks %q", tc.group, got, w)
			}
		}
	}
}
