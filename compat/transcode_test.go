package compat

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

// q2_0Twin writes a Q2_0 file holding the ternary values of the TQ2_0 file
// src: every TQ2_0 tensor re-encoded as Q2_0, each 64-weight block with the
// fp16 scale of the 256 it lies in (what a BITCOS weight transcoded to Q2_0
// holds), everything else as it is.
func q2_0Twin(t *testing.T, src string) string {
	t.Helper()
	f, err := ggufx.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := ggufx.HeaderFromFile(f)
	h.Tensors = append([]ggufx.TensorInfo(nil), h.Tensors...)
	for i := range h.Tensors {
		if h.Tensors[i].Type == ggufx.TypeTQ2_0 {
			h.Tensors[i].Type = ggufx.TypeQ2_0
		}
	}
	out := filepath.Join(t.TempDir(), "q2_0.gguf")
	fo, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer fo.Close()
	bw := bufio.NewWriter(fo)
	w, err := ggufx.NewWriter(bw, h)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for i, ti := range f.Tensors {
		if buf, err = f.ReadTensor(i, buf); err != nil {
			t.Fatal(err)
		}
		data := buf
		if ti.Type == ggufx.TypeTQ2_0 {
			k := int(ti.Dims[0])
			rows := int(ti.Elements()) / k
			p, s := &format.Planes{}, &format.Scales{}
			if err := format.TQ2_0.Decode(buf, k, rows, p, s); err != nil {
				t.Fatalf("%s: %v", ti.Name, err)
			}
			per64 := make([]uint16, rows*k/64)
			for j := range per64 {
				per64[j] = s.F16[j/4]
			}
			data = make([]byte, format.Q2_0.TensorBytes(k, rows))
			if err := format.Q2_0.Encode(p, &format.Scales{Group: 64, F16: per64}, data); err != nil {
				t.Fatalf("%s: %v", ti.Name, err)
			}
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVulkanTranscoded: a device whose backend has no BITCOS path gets the
// weights in its own ternary type, made at load by the loader (patch 0015):
// Vulkan with its BITCOS path switched off (GGML_VK_BITCOS_DISABLE), and with
// it on but the layout forced (GGML_BITCOS_DEVICE_LAYOUT). TQ2_0 blocks give
// the TQ2_0 file's logits on the same device, Q2_0 blocks those of a Q2_0
// file of the same values: PPL equal, mean KLD 0, every layer there and with
// two layers there (without op offload when the device has no BITCOS path);
// bitnet, bitnet-b1.58 and an MoE model. The loader's log names the layout.
func TestVulkanTranscoded(t *testing.T) {
	bin := vulkanBin(t, "llama-perplexity")
	text := vulkanText(t)
	type model struct{ tq2, q2, bitcos string }
	models := map[string]model{}
	for _, m := range []struct {
		arch    string
		experts int
	}{{"bitnet", 0}, {"bitnet-b1.58", 0}, {"llama", 4}} {
		tq2, bitcos := repackedModels(t, m.arch, m.experts, 31)
		models[m.arch] = model{tq2, q2_0Twin(t, tq2), bitcos}
	}
	reLayout := regexp.MustCompile(`BITCOS weights on Vulkan0: ([^(]*) \(([^)]*)\)`)
	for _, c := range []struct {
		name, layout string
		disable      bool
		want         string // in the loader's log line
	}{
		{"no-bitcos-path", "", true, "TQ2_0 blocks made at load"},
		{"no-bitcos-path-q2_0", "q2_0", true, "Q2_0 blocks made at load"},
		{"forced-tq2_0", "tq2_0", false, "TQ2_0 blocks made at load"},
		{"forced-q2_0", "q2_0", false, "Q2_0 blocks made at load"},
	} {
		for _, arch := range []string{"bitnet", "bitnet-b1.58", "llama"} {
			for _, ngl := range []string{"99", "2"} {
				t.Run(c.name+"/"+arch+"/ngl-"+ngl, func(t *testing.T) {
					if c.disable {
						t.Setenv("GGML_VK_BITCOS_DISABLE", "1")
					}
					if c.layout != "" {
						t.Setenv("GGML_BITCOS_DEVICE_LAYOUT", c.layout)
					}
					m := models[arch]
					base := m.tq2
					if strings.HasPrefix(c.want, "Q2_0") {
						base = m.q2
					}
					if c.disable && ngl != "99" && c.layout == "q2_0" {
						// the CPU layers: BITCOS runs as TQ2_0 there, the
						// twin as Q2_0 (other kernels, other float order),
						// and neither batch can go to the device: no file
						// holds this mix. The device's layers are covered
						// by ngl 99.
						t.Skip("no reference for Q2_0 device layers beside BITCOS CPU layers without op offload")
					}
					extra := []string{"-ngl", ngl, "--chunks", "4", "-v"}
					if c.disable && ngl != "99" {
						// a backend without a BITCOS path cannot take the
						// batches of the CPU layers' BITCOS weights (op
						// offload), while it takes the TQ2_0 file's: the
						// two would then differ in float order, not in
						// values. Both run their CPU layers on the CPU.
						extra = append(extra, "--no-op-offload")
					}
					r, err := ppl.Run(ppl.Options{Bin: bin, Base: base, Candidate: m.bitcos, Text: text, Ctx: 128, Threads: 2,
						Extra: extra})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD)
					if err := r.Parity(1e-6, false); err != nil {
						t.Fatal(err)
					}
					got := reLayout.FindStringSubmatch(r.CandLog)
					if got == nil || got[1] != c.want {
						t.Fatalf("the loader's layout line: %q, want %q", got, c.want)
					}
				})
			}
		}
	}
}

// badRowIndex copies the BITCOS file src with the first weight's row index
// broken (row 0's sign stream one byte too long) and returns the copy.
func badRowIndex(t *testing.T, src string) string {
	t.Helper()
	f, err := ggufx.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range f.Tensors {
		if strings.HasSuffix(ti.Name, ".bitcos_rows") {
			off := f.DataOffset + ti.Offset + 4 // rows[1]
			data[off]++
			out := filepath.Join(t.TempDir(), "bad-index.gguf")
			if err := os.WriteFile(out, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatal("no .bitcos_rows tensor")
	return ""
}

// TestVulkanTranscodedBadIndex: a crafted row index fails the load with the
// loader's message on the transcoding path as on the others (Vulkan's own
// BITCOS path, the CPU), never a crash, with and without mmap.
func TestVulkanTranscodedBadIndex(t *testing.T) {
	bin := vulkanBin(t, "llama-completion")
	_, bitcos := repackedModels(t, "bitnet", 0, 33)
	bad := badRowIndex(t, bitcos)
	want := regexp.MustCompile(`BITCOS tensor '[^']+': row 0 has \d+ non-zero weights but the index gives \d+ sign bytes`)
	for _, c := range []struct {
		name string
		env  []string
		args []string
	}{
		{"transcoded", []string{"GGML_VK_BITCOS_DISABLE=1"}, []string{"-ngl", "99"}},
		{"transcoded-no-mmap", []string{"GGML_VK_BITCOS_DISABLE=1"}, []string{"-ngl", "99", "--no-mmap"}},
		{"transcoded-q2_0", []string{"GGML_VK_BITCOS_DISABLE=1", "GGML_BITCOS_DEVICE_LAYOUT=q2_0"}, []string{"-ngl", "99"}},
		{"vulkan-native", nil, []string{"-ngl", "99"}},
		{"cpu", nil, []string{"-ngl", "0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"-m", bad, "-p", "hi", "-n", "2", "-no-cnv", "-t", "2", "-v"}, c.args...)...)
			cmd.Env = append(os.Environ(), c.env...)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !ee.Exited() {
				t.Fatalf("want an error exit, got %v\n%s", err, tailString(string(out), 2000))
			}
			if !want.Match(out) {
				t.Fatalf("the output lacks the loader's message %v:\n%s", want, tailString(string(out), 2000))
			}
			// the path it names was taken
			if transcoded := strings.Contains(string(out), "blocks made at load"); transcoded != strings.HasPrefix(c.name, "transcoded") {
				t.Fatalf("transcoded: %v, want %v", transcoded, !transcoded)
			}
		})
	}
}

// TestRPCTranscoded: over RPC the server's own support decides: a Vulkan
// rpc-server whose device claims no BITCOS path (GGML_VK_BITCOS_DISABLE on
// the server) gets the weights as TQ2_0 blocks made by the client's loader,
// and gives the TQ2_0 file's logits over the same server.
func TestRPCTranscoded(t *testing.T) {
	client := llamaBin(t, "llama-perplexity")
	srv := vulkanBin(t, "ggml-rpc-server")
	s := startRPCServerBin(t, srv, "GGML_VK_BITCOS_DISABLE=1")
	tq2, bitcos := rpcModels(t, "bitnet", 0)
	r, err := ppl.Run(ppl.Options{Bin: client, Base: tq2, Candidate: bitcos, Text: vulkanText(t), Ctx: 128, Threads: 2,
		Extra: []string{"--rpc", s.addr, "-ngl", "99", "--chunks", "4", "-v"}})
	if err != nil {
		t.Fatalf("%v\nserver:\n%s", err, tailString(s.output(), 2000))
	}
	t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD)
	if err := r.Parity(1e-6, false); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`BITCOS weights on RPC\d+: TQ2_0 blocks made at load`).MatchString(r.CandLog) {
		t.Fatalf("the client's loader did not transcode for the server:\n%s", tailString(r.CandLog, 2000))
	}
}
