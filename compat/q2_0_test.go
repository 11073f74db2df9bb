package compat

import (
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

// q2_0Archs are the models of the Q2_0 tests: bitnet, bitnet-b1.58, and a
// llama MoE whose experts run through MUL_MAT_ID.
var q2_0Archs = []struct {
	arch    string
	experts int
}{{"bitnet", 0}, {"bitnet-b1.58", 0}, {"llama", 4}}

// TestQ2_0SourcedParity (issue 38): a BITCOS repack of a Q2_0 file (fp16
// scales per 64 weights) gives the Q2_0 file's logits on the CPU, bit for
// bit (the saved log-probs are the same bytes): with the rule's default (the
// weights made into Q2_0 blocks at load, CPU_BITCOS) and with the native
// layout forced (each row decoded into those blocks for every product), at
// the default batch and one token per ubatch.
func TestQ2_0SourcedParity(t *testing.T) {
	bin := llamaBin(t, "llama-perplexity")
	text := vulkanText(t)
	for _, m := range q2_0Archs {
		q2, bitcos := repackedModelsOf(t, ggufx.TypeQ2_0, m.arch, m.experts, 38)
		for _, layout := range []string{"", "native"} {
			for _, ub := range []string{"512", "1"} {
				name := m.arch + "/layout-" + layout + "/ub-" + ub
				if layout == "" {
					name = m.arch + "/default/ub-" + ub
				}
				t.Run(name, func(t *testing.T) {
					if layout != "" {
						t.Setenv("GGML_BITCOS_LAYOUT", layout)
					}
					r, err := ppl.Run(ppl.Options{Bin: bin, Base: q2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
						Extra: []string{"-b", "128", "-ub", ub, "--chunks", "4"}})
					if err != nil {
						t.Fatal(err)
					}
					if !r.LogitsIdentical {
						t.Fatalf("logits differ: PPL %s vs %s, mean KLD %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD)
					}
					if err := r.Parity(0, false); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestRPCQ2_0Sourced (issue 38): over a loopback CPU server, a Q2_0-sourced
// repack gives the Q2_0 file's logits over the same server, bit for bit:
// transcoded into Q2_0 blocks by the loader (the rule's default for scales
// per 64, and forced: the Q2_0 file's bytes), run as BITCOS there
// (GGML_BITCOS_DEVICE_LAYOUT=native: the server's CPU path), and with tq2_0
// forced, which such weights cannot take (TQ2_0 holds one scale per 256
// weights): the loader says so and keeps the default.
func TestRPCQ2_0Sourced(t *testing.T) {
	bin := llamaBin(t, "llama-perplexity")
	s := startRPCServer(t)
	text := vulkanText(t)
	for _, m := range q2_0Archs {
		q2, bitcos := repackedModelsOf(t, ggufx.TypeQ2_0, m.arch, m.experts, 39)
		for _, c := range []struct {
			layout string
			want   string // in the loader's log line about the device
		}{
			{"", "Q2_0 blocks made at load (default: the backend runs Q2_0; the weight's scales are per 64"},
			{"native", "BITCOS (forced"},
			{"q2_0", "Q2_0 blocks made at load (forced"},
			{"tq2_0", "cannot take for the weight"},
		} {
			t.Run(m.arch+"/device-layout-"+c.layout, func(t *testing.T) {
				if c.layout != "" {
					t.Setenv("GGML_BITCOS_DEVICE_LAYOUT", c.layout)
				}
				extra := []string{"--rpc", s.addr, "-ngl", "99", "--chunks", "4"}
				checkLoaderLog(t, bin, bitcos, text, extra, c.want, s)
				r, err := ppl.Run(ppl.Options{Bin: bin, Base: q2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2, Extra: extra})
				if err != nil {
					t.Fatalf("%v\nserver:\n%s", err, tailString(s.output(), 2000))
				}
				if !r.LogitsIdentical {
					t.Fatalf("logits differ: PPL %s vs %s, mean KLD %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD)
				}
			})
		}
	}
	if s.exited() {
		t.Fatal("the server exited")
	}
}

// TestVulkanQ2_0Sourced (issue 38): on Vulkan, a Q2_0-sourced repack gives the
// Q2_0 file's logits on the same device, bit for bit, every layer there: by
// default (the loader makes the Q2_0 file's blocks at load: the rule's choice
// for scales per 64), with Vulkan's BITCOS path switched off (the same
// blocks, as on a device without one), and with the native path forced (the
// weight decoded into Q2_0 blocks for every product, which then run Q2_0's
// own mat-vec and matmul pipelines), at the default batch and 4-token
// ubatches. The loader's log names each layout.
func TestVulkanQ2_0Sourced(t *testing.T) {
	bin := vulkanBin(t, "llama-perplexity")
	text := vulkanText(t)
	for _, m := range q2_0Archs {
		q2, bitcos := repackedModelsOf(t, ggufx.TypeQ2_0, m.arch, m.experts, 40)
		for _, c := range []struct {
			name string
			env  []string
			want string // in the loader's log line about the device
		}{
			{"default", nil, "BITCOS weights on Vulkan0: Q2_0 blocks made at load (default: the backend runs Q2_0; the weight's scales are per 64"},
			{"bitcos-path-off", []string{"GGML_VK_BITCOS_DISABLE=1"}, "BITCOS weights on Vulkan0: Q2_0 blocks made at load (default: the backend runs Q2_0"},
			{"native", []string{"GGML_BITCOS_DEVICE_LAYOUT=native"}, "BITCOS weights on Vulkan0: BITCOS (forced by GGML_BITCOS_DEVICE_LAYOUT)"},
		} {
			for _, ub := range []string{"512", "4"} {
				t.Run(m.arch+"/"+c.name+"/ub-"+ub, func(t *testing.T) {
					r, err := ppl.Run(ppl.Options{Bin: bin, Base: q2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
						Extra: []string{"-ngl", "99", "-b", "128", "-ub", ub, "--chunks", "4", "-v"}, CandidateEnv: c.env})
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(r.CandLog, c.want) {
						t.Fatalf("the loader's layout line, want %q:\n%s", c.want, grepLines(r.CandLog, "BITCOS weights on"))
					}
					if strings.Contains(grepLines(r.CandLog, "offloaded"), "offloaded 0/") || !strings.Contains(r.CandLog, "offloaded") {
						t.Fatalf("layers not offloaded:\n%s", grepLines(r.CandLog, "offloaded"))
					}
					if !r.LogitsIdentical {
						t.Fatalf("logits differ: PPL %s vs %s, mean KLD %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD)
					}
				})
			}
		}
	}
}

// grepLines: the lines of s that contain sub.
func grepLines(s, sub string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
