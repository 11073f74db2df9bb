package compat

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

// f32TranscodeMaxKLD bounds the mean KL divergence of an f32-scaled model
// transcoded with its scales rounded to fp16 against the same model run
// exactly. Each projection's scale moves by at most 2^-11 (1e-4 to 4e-4 in the
// generated model); the generated model's confident, random logits amplify
// that to a mean KLD of about 0.01 (TQ2_0 blocks) and 0.04 (Q2_0 blocks, whose
// Q8_0 activations also differ from the CPU's Q8_K): what the bound guards is
// the scale itself (a wrong one gives a KLD of order 1), and the exact case
// below proves that rounding is the only change.
const f32TranscodeMaxKLD = 0.1

func TestRPCF32Transcoded(t *testing.T) {
	bin := llamaBin(t, "llama-perplexity")
	s := startRPCServer(t)
	text := vulkanText(t)
	bitcos, exact := f32Models(t)
	for _, c := range []struct {
		model     string
		layout    string
		want      string // in the loader's log line about the device
		identical bool   // the logits equal the CPU's
	}{
		{bitcos, "", "BITCOS (default: the backend runs BITCOS)", true},
		{bitcos, "tq2_0", "TQ2_0 blocks made at load (forced", false},
		{bitcos, "q2_0", "Q2_0 blocks made at load (forced", false},
		{bitcos, "host", "forced by GGML_BITCOS_DEVICE_LAYOUT", true},
		{exact, "tq2_0", "TQ2_0 blocks made at load (forced", true},
	} {
		name := "device-layout-" + c.layout
		if c.model == exact {
			name += "/fp16-exact-scales"
		}
		bitcos := c.model
		t.Run(name, func(t *testing.T) {
			if c.layout != "" {
				t.Setenv("GGML_BITCOS_DEVICE_LAYOUT", c.layout)
			}
			extra := []string{"--rpc", s.addr, "-ngl", "99", "--chunks", "4"}
			checkLoaderLog(t, bin, bitcos, text, extra, c.want, s)
			// the base: the model on the CPU alone (no device: nothing transcoded)
			r, err := ppl.Run(ppl.Options{Bin: bin, Base: bitcos, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
				Extra: []string{"--chunks", "4"}, CandidateExtra: extra[:4]})
			if err != nil {
				t.Fatalf("%v\nserver:\n%s", err, tailString(s.output(), 2000))
			}
			t.Logf("%q: PPL %s (device) vs %s (CPU), mean KLD %.3g, max %.3g, identical %v",
				c.layout, r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD, r.LogitsIdentical)
			switch {
			case c.identical && !r.LogitsIdentical:
				t.Fatalf("logits differ from the CPU's: mean KLD %.3g", r.MeanKLD)
			case !c.identical && r.MeanKLD > f32TranscodeMaxKLD:
				t.Fatalf("mean KLD %.3g over the rounding's bound %.3g", r.MeanKLD, f32TranscodeMaxKLD)
			}
		})
	}
	if s.exited() {
		t.Fatal("the server exited")
	}
}

// roundScalesInPlace copies the BITCOS file src to dst with every per-tensor
// f32 scale (a .bitcos_scales tensor of one F32) replaced by its fp16 rounding
// (nearest even, as the loader rounds), so fp16 holds them exactly.
func roundScalesInPlace(t *testing.T, src, dst string) {
	t.Helper()
	f, err := ggufx.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range f.Tensors {
		if !strings.HasSuffix(ti.Name, ".bitcos_scales") || ti.Type != ggufx.TypeF32 || ti.Elements() != 1 {
			continue
		}
		off := f.DataOffset + ti.Offset
		d := math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
		binary.LittleEndian.PutUint32(b[off:], math.Float32bits(float16.Fromfloat32(d).Float32()))
		n++
	}
	if n == 0 {
		t.Fatal("no per-tensor f32 scale in " + src)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVulkanF32Transcoded: on Vulkan with its BITCOS path switched off
// (GGML_VK_BITCOS_DISABLE, as on a device without one), an I2_S-sourced
// model's weights go to the device as TQ2_0 blocks with the scale rounded to
// fp16, every layer there. Compared with the same weights run natively by
// Vulkan's BITCOS path, and with the CPU's native layout (all layers on the
// CPU, GGML_BITCOS_LAYOUT=native: the exact f32 scale): with scales fp16
// holds exactly, the differences are the kernels' float orders only (the
// floor, logged); with the model's own scales the mean KLD stays under
// f32TranscodeMaxKLD. All are logged.
func TestVulkanF32Transcoded(t *testing.T) {
	bin := vulkanBin(t, "llama-perplexity")
	text := vulkanText(t)
	bitcos, exact := f32Models(t)
	for _, c := range []struct {
		name, model string
		bound       float64
		cpu         bool // the base on the CPU's native layout, not Vulkan's BITCOS path
	}{
		{"own-scales", bitcos, f32TranscodeMaxKLD, false},
		{"fp16-exact-scales", exact, 1e-3, false},
		{"own-scales-vs-cpu-native", bitcos, f32TranscodeMaxKLD, true},
		{"fp16-exact-scales-vs-cpu-native", exact, f32TranscodeMaxKLD, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			// the candidate with the device's BITCOS path off: transcoded
			opt := ppl.Options{Bin: bin, Base: c.model, Candidate: c.model, Text: text, Ctx: 128, Threads: 2,
				Extra: []string{"--chunks", "4", "-v"}, BaseExtra: []string{"-ngl", "99"}, CandidateExtra: []string{"-ngl", "99"},
				CandidateEnv: []string{"GGML_VK_BITCOS_DISABLE=1"}}
			base := "Vulkan's BITCOS path"
			if c.cpu {
				opt.BaseExtra, opt.BaseEnv, base = []string{"-ngl", "0", "--no-op-offload"}, []string{"GGML_BITCOS_LAYOUT=native"}, "the CPU's native layout"
			}
			r, err := ppl.Run(opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("PPL %s (TQ2_0 blocks on Vulkan, scale rounded) vs %s (%s), mean KLD %.3g, max %.3g, same top %.3f%%",
				r.PPLCandText, r.PPLBaseText, base, r.MeanKLD, r.MaxKLD, r.SameTopP)
			if !strings.Contains(r.CandLog, "BITCOS weights on Vulkan0: TQ2_0 blocks made at load (default: the backend runs TQ2_0; the per-tensor f32 scale rounded to fp16") {
				t.Fatalf("the loader's layout line:\n%s", grepLines(r.CandLog, "BITCOS weights on"))
			}
			if !strings.Contains(r.CandLog, "offloaded") || strings.Contains(grepLines(r.CandLog, "offloaded"), "offloaded 0/") {
				t.Fatalf("layers not offloaded:\n%s", grepLines(r.CandLog, "offloaded"))
			}
			if r.MeanKLD > c.bound {
				t.Fatalf("mean KLD %.3g over %.3g", r.MeanKLD, c.bound)
			}
		})
	}
}

// f32Models writes a generated I2_S-sourced bitnet-b1.58 model's BITCOS
// repack (one f32 scale per tensor) and a copy with those scales rounded to
// fp16 (roundScalesInPlace), and returns both.
func f32Models(t *testing.T) (bitcos, exact string) {
	t.Helper()
	_, bitcos = repackedModelsOf(t, ggufx.TypeI2_S, "bitnet-b1.58", 0, 41)
	exact = filepath.Join(filepath.Dir(bitcos), "bitcos-fp16-exact.gguf")
	roundScalesInPlace(t, bitcos, exact)
	return bitcos, exact
}

// checkLoaderLog runs llama-perplexity -v on model with extra and fails
// unless its log holds want (the loader's line about the device's layout);
// s, if not nil, is the RPC server whose output a failure shows too.
func checkLoaderLog(t *testing.T, bin, model, text string, extra []string, want string, s *rpcServer) {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"-m", model, "-f", text, "-c", "128", "-t", "2", "-v"}, extra...)...).CombinedOutput()
	if err != nil {
		server := ""
		if s != nil {
			server = "\nserver:\n" + tailString(s.output(), 2000)
		}
		t.Fatalf("%v\n%s%s", err, tailString(string(out), 2000), server)
	}
	if !strings.Contains(string(out), want) {
		t.Fatalf("the loader's log lacks %q:\n%s", want, grepLines(string(out), "BITCOS"))
	}
}
