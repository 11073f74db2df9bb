package compat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/ppl"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// rpcServer is a ggml-rpc-server of the patched build ($GGUF_BITCOS_LLAMA_BIN,
// configured with -DGGML_RPC=ON) on a free 127.0.0.1 port, stopped at the
// end of the test, which fails if the server exited on its own (a crash).
type rpcServer struct {
	addr string
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  bytes.Buffer
	done chan struct{}
}

func (s *rpcServer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

func (s *rpcServer) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// exited reports whether the server has stopped.
func (s *rpcServer) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func startRPCServer(t *testing.T, env ...string) *rpcServer {
	t.Helper()
	return startRPCServerBin(t, llamaBin(t, "ggml-rpc-server"), env...)
}

// freePort is a 127.0.0.1 port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs cmd with its output in s's log; at the end of the test the
// process is killed, and the test fails if it had exited on its own.
func (s *rpcServer) start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	s.cmd, s.done = cmd, make(chan struct{})
	s.cmd.Stdout, s.cmd.Stderr = s, s
	// a crashed server's backtrace (ggml_print_backtrace runs gdb) may keep
	// the output pipe open after the server is gone: Wait must not hang
	s.cmd.WaitDelay = 5 * time.Second
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	name := filepath.Base(cmd.Path)
	t.Cleanup(func() {
		crashed := s.exited()
		s.cmd.Process.Kill()
		<-s.done
		if crashed {
			t.Errorf("%s exited during the test (%v):\n%s", name, s.cmd.ProcessState, tailString(s.output(), 3000))
		}
	})
}

// startRPCServerBin starts the ggml-rpc-server at bin.
func startRPCServerBin(t *testing.T, bin string, env ...string) *rpcServer {
	t.Helper()
	port := freePort(t)
	s := &rpcServer{addr: fmt.Sprintf("127.0.0.1:%d", port)}
	cmd := exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port), "-t", "2")
	cmd.Env = append(os.Environ(), env...)
	s.start(t, cmd)
	for deadline := time.Now().Add(20 * time.Second); ; {
		if s.exited() {
			t.Fatalf("ggml-rpc-server did not start:\n%s", s.output())
		}
		// listening once a connection succeeds (the server drops one that
		// sends no HELLO; its stdout is not flushed before it exits)
		if c, err := net.Dial("tcp", s.addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ggml-rpc-server did not listen on %s:\n%s", s.addr, s.output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// waitLog waits until what s logged after its first before bytes holds want
// (the log reaches us through a pipe), failing the test after 5 s.
func waitLog(t *testing.T, s *rpcServer, before int, want string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(s.output()[before:], want); {
		if time.Now().After(deadline) {
			t.Fatalf("server log lacks %q:\n%s", want, tailString(s.output()[before:], 2000))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rpcModels writes a generated TQ2_0 model and its BITCOS repack: bitnet,
// or with experts > 0 a llama MoE (MUL_MAT_ID).
func rpcModels(t *testing.T, arch string, experts int) (tq2, bitcos string) {
	return repackedModels(t, arch, experts, 11)
}

// repackedModels writes a generated small TQ2_0 model (seed, arch, experts)
// and its BITCOS repack, which must convert some tensor.
func repackedModels(t *testing.T, arch string, experts int, seed uint64) (tq2, bitcos string) {
	return repackedModelsOf(t, ggufx.TypeTQ2_0, arch, experts, seed)
}

// repackedModelsOf is repackedModels for a source of type typ.
func repackedModelsOf(t *testing.T, typ ggufx.GGMLType, arch string, experts int, seed uint64) (src, bitcos string) {
	s := modelgen.Small(typ, seed)
	s.Arch = arch
	s.Experts = experts
	src, bitcos, _ = repackSpec(t, s)
	return src, bitcos
}

// repackSpec writes the model of spec s into a temporary directory (the
// source named by its type: tq2_0.gguf, q2_0.gguf, ...) and its BITCOS
// repack, which must convert some tensor; it returns both paths and repack's
// report.
func repackSpec(t *testing.T, s modelgen.Spec) (src, bitcos string, rep *repack.Report) {
	t.Helper()
	dir := t.TempDir()
	src = filepath.Join(dir, s.Type.String()+".gguf")
	if err := modelgen.Write(src, s); err != nil {
		t.Fatal(err)
	}
	bitcos = filepath.Join(dir, "bitcos.gguf")
	rep, err := repack.Repack(src, repack.Options{Output: bitcos})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Converted == 0 {
		t.Fatalf("the %v model's repack converted no tensor", s.Type)
	}
	return src, bitcos, rep
}

// TestRPCPerplexityParity: a BITCOS repack run over loopback RPC servers
// gives the TQ2_0 file's logits over the same servers: printed PPL equal,
// mean KLD 0, with every layer on one server, with two layers there and the
// rest on the client's CPU, over two servers, and for an MoE model whose
// experts go through MUL_MAT_ID. The servers must outlive every run.
func TestRPCPerplexityParity(t *testing.T) {
	bin := llamaBin(t, "llama-perplexity")
	a, b := startRPCServer(t), startRPCServer(t)
	text := vulkanText(t)
	for _, c := range []struct {
		name    string
		arch    string
		experts int
		extra   []string
	}{
		{"full", "bitnet", 0, []string{"--rpc", a.addr, "-ngl", "99"}},
		{"partial", "bitnet-b1.58", 0, []string{"--rpc", a.addr, "-ngl", "2"}},
		{"two-servers", "bitnet", 0, []string{"--rpc", a.addr + "," + b.addr, "-ngl", "99"}},
		{"moe", "llama", 4, []string{"--rpc", a.addr, "-ngl", "99"}},
		{"ubatch-4", "bitnet", 0, []string{"--rpc", a.addr, "-ngl", "99", "-b", "128", "-ub", "4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tq2, bitcos := rpcModels(t, c.arch, c.experts)
			r, err := ppl.Run(ppl.Options{Bin: bin, Base: tq2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
				Extra: append(c.extra, "--chunks", "6")})
			if err != nil {
				t.Fatalf("%v\nserver A:\n%s", err, tailString(a.output(), 2000))
			}
			t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f, same top p %.3f%%", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD, r.SameTopP)
			if err := r.Parity(1e-6, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRPCGreedy: greedy text of the BITCOS repack over a loopback server is
// the TQ2_0 file's over the same server; the BITCOS weights ran there (the
// client asked the server whether it runs their ops, the server computed
// graphs, and was set no more bytes while the model loaded than the file's
// tensor data: the companions travel as they are stored).
func TestRPCGreedy(t *testing.T) {
	bin := llamaBin(t, "llama-completion")
	s := startRPCServer(t, "GGML_RPC_DEBUG=1")
	tq2, bitcos := rpcModels(t, "bitnet", 0)
	var want string
	reSet := regexp.MustCompile(`\[set_tensor\] .* size: (\d+)`)
	for i, m := range []string{tq2, bitcos} {
		before := len(s.output())
		cmd := exec.Command(bin, "-m", m, "-p", "The format stores", "-n", "32", "--temp", "0", "-no-cnv", "-t", "2",
			"--rpc", s.addr, "-ngl", "99")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s\nserver:\n%s", filepath.Base(m), err, tailString(stderr.String(), 2000), tailString(s.output(), 2000))
		}
		time.Sleep(200 * time.Millisecond) // the server's log reaches us through a pipe
		log := s.output()[before:]
		if !strings.Contains(log, "[graph_compute]") {
			t.Fatalf("%s: the server computed no graph:\n%s", filepath.Base(m), tailString(log, 2000))
		}
		if i == 0 {
			want = stdout.String()
			t.Logf("%q", want)
			continue
		}
		// the client asked the server whether it runs the BITCOS ops
		// (RPC_CMD_SUPPORTS_OP), and it does
		if !strings.Contains(log, "[supports_op] device: 0, op: MUL_MAT, supported: 1") || strings.Contains(log, "supported: 0") {
			t.Fatalf("the server was not asked about BITCOS ops, or refused one:\n%s", tailString(log, 2000))
		}
		var sent uint64
		for _, m := range reSet.FindAllStringSubmatch(log, -1) {
			n, _ := strconv.ParseUint(m[1], 10, 64)
			sent += n
		}
		f, err := ggufx.Open(bitcos)
		if err != nil {
			t.Fatal(err)
		}
		var data uint64
		for _, ti := range f.Tensors {
			data += ti.Size
		}
		f.Close()
		t.Logf("BITCOS: %d bytes set on the server (inputs included), the file's tensor data %d", sent, data)
		if sent == 0 || sent > data {
			t.Fatalf("%d bytes set on the server, the file's tensor data is %d", sent, data)
		}
		got := stdout.String()
		n := min(len(got), len(want))
		if n < len(" The format stores") || got[:n] != want[:n] {
			t.Fatalf("BITCOS generated %q, TQ2_0 %q", got, want)
		}
	}
}

// TestRPCVulkanServer: ggml-rpc-servers of the Vulkan build
// ($GGUF_BITCOS_VULKAN_BIN, with -DGGML_RPC=ON; lavapipe where no GPU is)
// serve a client of the CPU build: every layer on one, two layers there with
// the rest on the client's CPU, the layers over two servers, and an MoE
// model; PPL equal to the TQ2_0 file's over the same servers, mean KLD 0; and
// greedy text identical.
func TestRPCVulkanServer(t *testing.T) {
	client := llamaBin(t, "llama-perplexity")
	srv := vulkanBin(t, "ggml-rpc-server") // sets GGML_VK_VISIBLE_DEVICES for the server
	s, s2 := startRPCServerBin(t, srv), startRPCServerBin(t, srv)
	text := vulkanText(t)
	for _, c := range []struct {
		name, arch string
		experts    int
		rpc, ngl   string
	}{
		{"full", "bitnet", 0, s.addr, "99"},
		{"partial", "bitnet-b1.58", 0, s.addr, "2"},
		{"two-servers", "bitnet", 0, s.addr + "," + s2.addr, "99"},
		{"moe", "llama", 4, s.addr, "99"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tq2, bitcos := rpcModels(t, c.arch, c.experts)
			r, err := ppl.Run(ppl.Options{Bin: client, Base: tq2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
				Extra: []string{"--rpc", c.rpc, "-ngl", c.ngl, "--chunks", "4"}})
			if err != nil {
				t.Fatalf("%v\nserver:\n%s", err, tailString(s.output(), 2000))
			}
			t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f, same top p %.3f%%", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD, r.SameTopP)
			if err := r.Parity(1e-6, false); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("greedy", func(t *testing.T) {
		tq2, bitcos := rpcModels(t, "bitnet", 0)
		var texts []string
		for _, m := range []string{tq2, bitcos} {
			cmd := exec.Command(llamaBin(t, "llama-completion"), "-m", m, "-p", "The format stores", "-n", "32", "--temp", "0",
				"-no-cnv", "-t", "2", "--rpc", s.addr, "-ngl", "99")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s\nserver:\n%s", filepath.Base(m), err, tailString(stderr.String(), 2000), tailString(s.output(), 2000))
			}
			texts = append(texts, stdout.String())
		}
		// the logger may lose a last line at exit: equal up to the shorter
		n := min(len(texts[0]), len(texts[1]))
		if n < len(" The format stores")+8 || texts[0][:n] != texts[1][:n] {
			t.Fatalf("BITCOS generated %q, TQ2_0 %q", texts[1], texts[0])
		}
		t.Logf("%q", texts[1])
	})
}

// TestRPCOldServerRefused: a server that answers the handshake with protocol
// 5.0.0 (upstream's, or a series from before the companions were op sources)
// is refused by the client at the handshake, with a message naming both
// versions, and is sent nothing more: no weight, no graph. The client goes on
// without it, as llama.cpp does with any server it cannot use (common's
// add_rpc_devices registers no device for it), and does not crash.
func TestRPCOldServerRefused(t *testing.T) {
	bin := llamaBin(t, "llama-completion")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var cmds []byte // every command the stand-in was sent
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				for {
					var hdr [9]byte
					if _, err := io.ReadFull(c, hdr[:]); err != nil {
						return
					}
					mu.Lock()
					cmds = append(cmds, hdr[0])
					mu.Unlock()
					if _, err := io.CopyN(io.Discard, c, int64(binary.LittleEndian.Uint64(hdr[1:]))); err != nil || hdr[0] != rpcCmdHello {
						return
					}
					rsp := make([]byte, 8+4+rpcConnCapsSize)
					binary.LittleEndian.PutUint64(rsp, uint64(4+rpcConnCapsSize))
					rsp[8], rsp[9], rsp[10] = 5, 0, 0
					c.Write(rsp)
				}
			}(c)
		}
	}()
	_, bitcos := rpcModels(t, "bitnet", 0)
	cmd := exec.Command(bin, "-m", bitcos, "-p", "hi", "-n", "4", "-no-cnv", "-t", "2", "--rpc", l.Addr().String(), "-ngl", "99")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && !ee.Exited() {
		t.Fatalf("llama-completion against a 5.0 server crashed: %v\n%s", err, tailString(string(out), 2000))
	}
	want := "speaks protocol 5.0.0; this client speaks 5.1.0, which BITCOS weights need"
	if !strings.Contains(string(out), want) {
		t.Fatalf("the client's output lacks %q:\n%s", want, tailString(string(out), 2000))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range cmds {
		if c != rpcCmdHello {
			t.Fatalf("the client sent command %d after the refused handshake (all: %v)", c, cmds)
		}
	}
}

// TestRPCServerLayout: a CPU ggml-rpc-server runs BITCOS weights in the
// layout its own CPU wants (ggml-cpu's rule, forced both ways here with
// GGML_BITCOS_LAYOUT on the server). With tq2_0 it copies the weights of
// MUL_MAT and MUL_MAT_ID into CPU_BITCOS at their first graph and says so;
// with native it runs them as the client sent them. Either way the logits
// are the TQ2_0 file's over the same server, and an I2_S-sourced file (an f32
// scale: f32 blocks) gives the same logits over both servers.
func TestRPCServerLayout(t *testing.T) {
	bin := llamaBin(t, "llama-perplexity")
	text := vulkanText(t)
	servers := map[string]*rpcServer{}
	for _, layout := range []string{"tq2_0", "native"} {
		servers[layout] = startRPCServer(t, "GGML_BITCOS_LAYOUT="+layout)
	}
	// checkLog: what the server said of its layout since before
	checkLog := func(t *testing.T, layout string, before int) {
		s := servers[layout]
		if layout == "native" {
			waitLog(t, s, before, "BITCOS weights of MUL_MAT and MUL_MAT_ID as the client sent them")
			if strings.Contains(s.output()[before:], "laid out in CPU_BITCOS") {
				t.Fatalf("the native server laid weights out:\n%s", tailString(s.output()[before:], 2000))
			}
			return
		}
		waitLog(t, s, before, "BITCOS weights of MUL_MAT and MUL_MAT_ID in CPU_BITCOS's layout")
		waitLog(t, s, before, "laid out in CPU_BITCOS")
	}
	for _, layout := range []string{"tq2_0", "native"} {
		for _, c := range []struct {
			name, arch string
			experts    int
		}{
			{"bitnet", "bitnet", 0},
			{"moe", "llama", 4},
		} {
			t.Run(layout+"/"+c.name, func(t *testing.T) {
				s := servers[layout]
				before := len(s.output())
				tq2, bitcos := rpcModels(t, c.arch, c.experts)
				r, err := ppl.Run(ppl.Options{Bin: bin, Base: tq2, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
					Extra: []string{"--rpc", s.addr, "-ngl", "99", "--chunks", "4"}})
				if err != nil {
					t.Fatalf("%v\nserver:\n%s", err, tailString(s.output(), 2000))
				}
				t.Logf("PPL %s vs %s, mean KLD %.6f, max %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD)
				if err := r.Parity(1e-6, false); err != nil {
					t.Fatal(err)
				}
				checkLog(t, layout, before)
			})
		}
	}
	t.Run("i2_s", func(t *testing.T) {
		dir := t.TempDir()
		m := modelgen.Small(ggufx.TypeI2_S, 12)
		m.Arch, m.ScaleTensors = "bitnet-b1.58", true
		src, bitcos := filepath.Join(dir, "i2_s.gguf"), filepath.Join(dir, "bitcos.gguf")
		if err := modelgen.Write(src, m); err != nil {
			t.Fatal(err)
		}
		if rep, err := repack.Repack(src, repack.Options{Output: bitcos}); err != nil || rep.Converted == 0 {
			t.Fatalf("repack: %v", err)
		}
		before := len(servers["tq2_0"].output())
		beforeNative := len(servers["native"].output())
		r, err := ppl.Run(ppl.Options{Bin: bin, Base: bitcos, Candidate: bitcos, Text: text, Ctx: 128, Threads: 2,
			Extra:     []string{"-ngl", "99", "--chunks", "4"},
			BaseExtra: []string{"--rpc", servers["native"].addr}, CandidateExtra: []string{"--rpc", servers["tq2_0"].addr}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("PPL %s (tq2_0 server) vs %s (native server), mean KLD %.6f, max %.6f", r.PPLCandText, r.PPLBaseText, r.MeanKLD, r.MaxKLD)
		if err := r.Parity(1e-6, false); err != nil {
			t.Fatal(err)
		}
		checkLog(t, "tq2_0", before)
		checkLog(t, "native", beforeNative)
		// every converted weight became f32 blocks
		m32 := regexp.MustCompile(`(\d+) BITCOS weights converted to TQ2_0 blocks, (\d+) of them with an f32 scale`).
			FindStringSubmatch(servers["tq2_0"].output()[before:])
		if m32 == nil || m32[1] != m32[2] || m32[1] == "0" {
			t.Fatalf("the tq2_0 server did not make f32 blocks of every weight (%q):\n%s", m32, tailString(servers["tq2_0"].output()[before:], 2000))
		}
	})
}
