package advise

import (
	"fmt"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// What the series does with a model's ternary weights on GPUs: the device
// layout rule (kernels/c bitcos_select_device_layout, the one llama's loader
// asks) over what each backend's supports_op answers at the pin with the
// series applied. group: the weights per fp16 scale (256 or 64), or 0 for a
// per-tensor f32 scale.
type deviceBackend struct {
	name string
	caps func(group int) ckern.DeviceCaps
}

var deviceBackends = []deviceBackend{
	// patch 0016: f32 scales and fp16 per 64 natively; fp16 per 256 only under GGML_BITCOS_DEVICE_LAYOUT=native
	{"CUDA/HIP", func(g int) ckern.DeviceCaps { return ckern.DeviceCaps{Native: g != 256, Q2_0: true} }},
	// no BITCOS path: TQ2_0 and Q2_0
	{"Metal", func(int) ckern.DeviceCaps { return ckern.DeviceCaps{TQ2_0: true, Q2_0: true} }},
	// patch 0009: BITCOS natively (scales per 64: Q2_0 blocks per product)
	{"Vulkan", func(int) ckern.DeviceCaps { return ckern.DeviceCaps{Native: true, TQ2_0: true, Q2_0: true} }},
	// patch 0008: BITCOS natively (scales per 64: MUL_MAT through the F16 decode)
	{"SYCL", func(int) ckern.DeviceCaps { return ckern.DeviceCaps{Native: true, TQ2_0: true, Q2_0: true} }},
}

// deviceNote is one line naming each backend's layout for weights of group
// and why, as the loader's log would; "" without cgo (the rule is C).
func deviceNote(group int) string {
	if !ckern.Available {
		return ""
	}
	kind := map[int]string{0: "a per-tensor f32 scale", 64: "fp16 scales per 64 weights", 256: "fp16 scales per 256 weights"}[group]
	parts := make([]string, 0, len(deviceBackends))
	for _, b := range deviceBackends {
		c := ckern.SelectDeviceLayout(b.caps(group), group, nil)
		parts = append(parts, fmt.Sprintf("%s: %s (%s)", b.name, c.Name, strings.TrimPrefix(c.Why, "default: ")))
	}
	return fmt.Sprintf("on GPUs, weights with %s (the loader's rule; GGML_BITCOS_DEVICE_LAYOUT forces another): %s", kind, strings.Join(parts, "; "))
}
