package compat

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// llamaServer is a llama-server of the patched build ($GGUF_BITCOS_LLAMA_BIN,
// configured with LLAMA_BUILD_SERVER on) serving one model on a free
// 127.0.0.1 port; it is stopped at the end of the test, which fails if it
// exited on its own.
type llamaServer struct {
	rpcServer // the process and its log
	url       string
}

func startLlamaServer(t *testing.T, model string, args ...string) *llamaServer {
	t.Helper()
	bin := llamaBin(t, "llama-server")
	port := freePort(t)
	s := &llamaServer{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	s.start(t, exec.Command(bin, append([]string{"-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"-t", "2", "-c", "512", "-np", "1"}, args...)...))
	// /health answers 200 once the model is loaded (503 while loading)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if s.exited() {
			t.Fatalf("llama-server did not start:\n%s", tailString(s.output(), 3000))
		}
		if rsp, err := http.Get(s.url + "/health"); err == nil {
			rsp.Body.Close()
			if rsp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server did not become healthy on %s:\n%s", s.url, tailString(s.output(), 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

// post sends body to path and returns the status and the decoded JSON.
func (s *llamaServer) post(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	rsp, err := http.Post(s.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v\n%s", path, err, tailString(s.output(), 2000))
	}
	defer rsp.Body.Close()
	raw, err := io.ReadAll(rsp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s: status %d, not JSON: %q", path, rsp.StatusCode, raw)
	}
	return rsp.StatusCode, out
}

// completionText is choices[0].text of an OpenAI completion response.
func completionText(t *testing.T, r map[string]any) string {
	t.Helper()
	choices, _ := r["choices"].([]any)
	if len(choices) == 0 {
		t.Fatalf("no choices in %v", r)
	}
	c, _ := choices[0].(map[string]any)
	text, ok := c["text"].(string)
	if !ok {
		t.Fatalf("no text in %v", c)
	}
	return text
}

// TestServerCompletions: llama-server serves a BITCOS repack with the TQ2_0
// file's greedy completions through its OpenAI-compatible /v1/completions,
// for several prompts (an MoE model too), and answers bad requests with its
// own errors, staying up.
func TestServerCompletions(t *testing.T) {
	for _, c := range []struct {
		name, arch string
		experts    int
	}{
		{"bitnet", "bitnet", 0},
		{"moe", "llama", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			tq2, bitcos := repackedModels(t, c.arch, c.experts, 21)
			servers := []*llamaServer{startLlamaServer(t, tq2), startLlamaServer(t, bitcos)}
			if !strings.Contains(servers[1].output(), "bitcos") {
				t.Fatalf("the BITCOS server's log never mentions bitcos:\n%s", tailString(servers[1].output(), 2000))
			}
			// The generated vocabulary is mostly byte tokens (internal/modelgen,
			// vocab.go), and llama-server refuses output that is not UTF-8
			// ("does not match the expected Content-only format", the TQ2_0
			// file's as well): both servers are asked never to produce the
			// byte tokens 0x80-0xFF, the same logits bias on both sides.
			var noHighBytes [][2]any
			for b := 0x80; b <= 0xff; b++ {
				noHighBytes = append(noHighBytes, [2]any{3 + b, false})
			}
			for _, prompt := range []string{"The format stores", "hello world", "ternary weights below"} {
				body, _ := json.Marshal(map[string]any{"prompt": prompt, "max_tokens": 32, "temperature": 0, "seed": 1,
					"logit_bias": noHighBytes})
				var texts [2]string
				for i, s := range servers {
					status, r := s.post(t, "/v1/completions", string(body))
					if status != http.StatusOK {
						t.Fatalf("/v1/completions: status %d: %v", status, r)
					}
					texts[i] = completionText(t, r)
				}
				t.Logf("%q -> %q", prompt, texts[1])
				if texts[0] != texts[1] || len(texts[0]) == 0 {
					t.Fatalf("prompt %q: BITCOS completed %q, TQ2_0 %q", prompt, texts[1], texts[0])
				}
			}
			s := servers[1]
			for _, bad := range []struct{ name, body string }{
				{"not JSON", `{"prompt": "hi", `},
				{"no prompt", `{"max_tokens": 4}`},
				{"prompt of the wrong type", `{"prompt": {"a": 1}, "max_tokens": 4}`},
			} {
				status, r := s.post(t, "/v1/completions", bad.body)
				if status < 400 || status >= 600 || r["error"] == nil {
					t.Fatalf("%s: status %d, %v; want the server's error", bad.name, status, r)
				}
			}
			// and still serves
			again, _ := json.Marshal(map[string]any{"prompt": "hello world", "max_tokens": 4, "temperature": 0, "logit_bias": noHighBytes})
			if status, r := s.post(t, "/v1/completions", string(again)); status != http.StatusOK {
				t.Fatalf("after the bad requests: status %d, %v", status, r)
			}
			if strings.Contains(s.output(), "GGML_ASSERT") {
				t.Fatalf("an assertion in the server's log:\n%s", tailString(s.output(), 2000))
			}
		})
	}
}
