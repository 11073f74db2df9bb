//go:build !unix

package unprivileged

import "testing"

// EnvChild: see the unix version.
const EnvChild = "GGUF_BITCOS_UNPRIVILEGED_CHILD"

// Dir is a fresh folder for the test.
func Dir(t testing.TB) string { return t.TempDir() }

// Run skips: no other user can be taken on this system.
func Run(t testing.TB, test string, env ...string) (string, int) {
	t.Skip("no unprivileged child processes on this system")
	return "", 0
}

// Child is false: Run starts no children here.
func Child(test string) bool { return false }
