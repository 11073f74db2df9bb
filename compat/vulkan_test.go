package compat

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/internal/llamatest"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

// vulkanBin is the bin folder of a Vulkan build of llama.cpp at the pin with
// patches/ applied ($GGUF_BITCOS_VULKAN_BIN), run on the device
// $GGUF_BITCOS_VULKAN_DEVICE (an index for GGML_VK_VISIBLE_DEVICES, default
// 0: Mesa's lavapipe on a machine without a GPU, which ggml lists only when
// asked for it by index). Tests that need it skip without it or without a
// Vulkan0 device: CI builds no llama.cpp and has no Vulkan driver.
func vulkanBin(t *testing.T, tool string) string {
	p := llamatest.ToolIn(t, "GGUF_BITCOS_VULKAN_BIN", "the bin folder of a patched llama.cpp built with -DGGML_VULKAN=ON", tool)
	dev := os.Getenv("GGUF_BITCOS_VULKAN_DEVICE")
	if dev == "" {
		dev = "0"
	}
	t.Setenv("GGML_VK_VISIBLE_DEVICES", dev) // for every command the test runs
	out, _ := exec.Command(filepath.Join(filepath.Dir(p), "llama-completion"), "--list-devices").CombinedOutput()
	if !bytes.Contains(out, []byte("Vulkan0")) {
		t.Skipf("no Vulkan0 device with GGML_VK_VISIBLE_DEVICES=%s (llama-completion --list-devices):\n%s", dev, tailString(string(out), 1000))
	}
	return p
}

// TestVulkanBackendOps runs test-backend-ops' BITCOS cases (patch 0006:
// MUL_MAT up to batch 32 and a 3-D weight, MUL_MAT_ID, GET_ROWS) on Vulkan0
// against the CPU: every case must pass, and there must be cases, those with
// scales per 64 weights (type_s=q2_0: Q2_0 sources) among them.
func TestVulkanBackendOps(t *testing.T) {
	bin := vulkanBin(t, "test-backend-ops")
	rePassed := regexp.MustCompile(`(\d+)/(\d+) tests passed`)
	for _, op := range []string{"MUL_MAT", "MUL_MAT_ID", "GET_ROWS"} {
		out, err := exec.Command(bin, "-b", "Vulkan0", "-o", op, "-p", "bitcos").CombinedOutput()
		if err != nil {
			t.Fatalf("test-backend-ops -o %s: %v\n%s", op, err, tailString(string(out), 3000))
		}
		m := rePassed.FindSubmatch(out)
		if m == nil || string(m[1]) != string(m[2]) || string(m[1]) == "0" {
			t.Fatalf("test-backend-ops -o %s -p bitcos on Vulkan0: %q\n%s", op, m, tailString(string(out), 3000))
		}
		var per64 int
		for _, l := range strings.Split(string(out), "\n") {
			// buft=CPU_BITCOS cases put the weight in the CPU's own buffer
			// type, which no other backend reads (not supported there)
			if !strings.Contains(l, "type_s=q2_0") || strings.Contains(l, "buft=CPU_BITCOS") {
				continue
			}
			if !strings.HasSuffix(strings.TrimSpace(reANSI.ReplaceAllString(l, "")), ": OK") {
				t.Fatalf("test-backend-ops -o %s: a case with scales per 64 did not pass on Vulkan0: %s", op, l)
			}
			per64++
		}
		if per64 == 0 {
			t.Fatalf("test-backend-ops -o %s: no case with scales per 64 (type_s=q2_0) ran on Vulkan0\n%s", op, tailString(string(out), 3000))
		}
		t.Logf("%s: %s tests passed, %d of them with scales per 64", op, m[1], per64)
	}
}

// reANSI matches the colour codes test-backend-ops writes around OK and FAIL.
var reANSI = regexp.MustCompile("\x1b\\[[0-9;]*m")

// vulkanModels writes a generated TQ2_0 model of arch and its BITCOS repack.
func vulkanModels(t *testing.T, arch string) (tq2, bitcos string) {
	return repackedModels(t, arch, 0, 7)
}

// vulkanText is text for perplexity: a few hundred distinct words, so that a
// small context holds several chunks.
func vulkanText(t *testing.T) string {
	return llamatest.Text(t, "the format stores a presence bitmap and one sign bit for every non zero weight "+
		"of a ternary model so that token generation reads fewer bytes than two bit codes while the "+
		"prompt runs through the matmul of the source type on blocks decoded in a scratch buffer")
}

// TestVulkanPerplexityParity: TQ2_0 on Vulkan as base, its BITCOS repack on
// Vulkan as candidate, all layers offloaded, for bitnet and bitnet-b1.58:
// equal printed PPL and mean KLD 0 (below 1e-6; the saved log-probs are
// quantized, so identical logits give a KLD of 0 to 6 decimals), at the
// default batch (prompt processing: TQ2_0's matmul on the decoded TQ2_0
// blocks) and with 4-token ubatches (token generation: the mat-vec shader),
// and with layer 0 left on the CPU. 8 chunks of 128 tokens each.
func TestVulkanPerplexityParity(t *testing.T) {
	bin := vulkanBin(t, "llama-perplexity")
	text := vulkanText(t)
	for _, arch := range []string{"bitnet", "bitnet-b1.58"} {
		tq2, bitcos := vulkanModels(t, arch)
		for _, c := range []struct {
			name  string
			extra []string
		}{
			{"default-batch", []string{"-ngl", "99", "--chunks", "8"}},
			{"ubatch-4", []string{"-ngl", "99", "-b", "128", "-ub", "4", "--chunks", "8"}},
			// layer 0 on the CPU, the rest on Vulkan; the scheduler moves
			// the CPU layer's batches to the GPU (op offload) for BITCOS as
			// for TQ2_0: the companions travel as sources of the op, from
			// the mmap'ed file or from CPU_BITCOS (patches 0001, 0011)
			{"partial-offload", []string{"-ngl", "2", "--chunks", "8"}},
			{"partial-offload-native", []string{"-ngl", "2", "--chunks", "8"}},
			// and with op offload off, every CPU-layer op on the CPU
			{"partial-no-op-offload", []string{"-ngl", "2", "--no-op-offload", "--chunks", "8"}},
		} {
			t.Run(arch+"/"+c.name, func(t *testing.T) {
				if strings.HasSuffix(c.name, "-native") {
					t.Setenv("GGML_BITCOS_LAYOUT", "native") // CPU layers in host memory, not CPU_BITCOS
				}
				r, err := ppl.Run(ppl.Options{Bin: bin, Base: tq2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2, Extra: c.extra})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f, same top p %.3f%%", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD, r.SameTopP)
				if err := r.Parity(1e-6, false); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestVulkanGreedyAndStable: greedy text of the BITCOS repack on Vulkan is
// the TQ2_0 file's, at the default batch (a 16-token prompt: the prompt goes
// through TQ2_0's matmul on decoded blocks, then token generation through
// the mat-vec shader), and ten runs in a row finish cleanly (lavapipe 22
// crashed in 3 of 6 such runs while ggml-vulkan left descriptors to freed
// buffers in the sets it reuses; patches/NOTES.md, Vulkan).
func TestVulkanGreedyAndStable(t *testing.T) {
	bin := vulkanBin(t, "llama-completion")
	for _, arch := range []string{"bitnet", "bitnet-b1.58"} {
		tq2, bitcos := vulkanModels(t, arch)
		var want string
		for i, m := range []string{tq2, bitcos, bitcos, bitcos, bitcos, bitcos, bitcos, bitcos, bitcos, bitcos, bitcos} {
			cmd := exec.Command(bin, "-m", m, "-p", "The format stores", "-n", "32", "--temp", "0", "-no-cnv", "-t", "2", "-ngl", "99")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s run %d (%s): %v\n%s", arch, i, filepath.Base(m), err, tailString(stderr.String(), 2000))
			}
			got := stdout.String()
			if i == 0 {
				want = got
				t.Logf("%s: %q", arch, got)
				continue
			}
			// the logger can lose the end of stdout at exit: compare up
			// to the shorter text, which must hold the prompt
			n := min(len(got), len(want))
			if n < len(" The format stores") || got[:n] != want[:n] {
				t.Fatalf("%s run %d: BITCOS generated %q, TQ2_0 %q", arch, i, got, want)
			}
		}
	}
}
