// Package llamatest holds what the tests that run a llama.cpp build share:
// finding its tools and writing text for llama-perplexity.
package llamatest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ToolIn is tool in the folder named by the environment variable env (what
// says what that folder is); the test skips when it is unset or lacks tool.
func ToolIn(t *testing.T, env, what, tool string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		t.Skipf("%s is not set (%s)", env, what)
	}
	p := filepath.Join(dir, tool)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", p, err)
	}
	return p
}

// Text writes 1,400 words drawn from sentence (enough for several chunks of
// 128 tokens) to a file in the test's temporary folder and returns its path.
func Text(t *testing.T, sentence string) string {
	t.Helper()
	var b strings.Builder
	words := strings.Fields(sentence)
	for i := 0; i < 1400; i++ {
		b.WriteString(words[(i*7+i/len(words))%len(words)])
		b.WriteByte(' ')
	}
	p := filepath.Join(t.TempDir(), "text.txt")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
