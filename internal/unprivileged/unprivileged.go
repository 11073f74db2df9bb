//go:build unix

// Package unprivileged runs a test's checks as a user without privileges:
// permission checks that root passes (a folder without write permission)
// are tested as the users who meet them. Tests only.
package unprivileged

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// EnvChild is set in the environment of a child started by Run: the test
// it names is then the child's work, not a test to skip.
const EnvChild = "GGUF_BITCOS_UNPRIVILEGED_CHILD"

// nobody is the user and group a root process drops to.
const nobody = 65534

// Dir is a fresh folder that an unprivileged user can read and write
// (t.TempDir's are private to their owner), removed after the test.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gguf-bitcos-unpriv-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && info.IsDir() {
				os.Chmod(p, 0o755) // a read-only folder of the test
			}
			return nil
		})
		os.RemoveAll(dir)
	})
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Run runs the test named test of this test binary in a child process,
// as user nobody when this process is root (as itself otherwise), with
// EnvChild set to test and env added; it returns what the child printed
// and its exit status. The test skips, saying why, when no child can be
// started as another user.
func Run(t testing.TB, test string, env ...string) (out string, code int) {
	t.Helper()
	bin := os.Args[0]
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.count=1")
	if os.Geteuid() == 0 {
		// The test binary lives in a folder only root may enter: a copy
		// that nobody can run.
		dir := Dir(t)
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Skipf("cannot copy the test binary to run it as nobody: %v", err)
		}
		cp := filepath.Join(dir, filepath.Base(bin))
		if err := os.WriteFile(cp, b, 0o755); err != nil {
			t.Skipf("cannot copy the test binary to run it as nobody: %v", err)
		}
		cmd = exec.Command(cp, cmd.Args[1:]...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	cmd.Env = append(append(os.Environ(), EnvChild+"="+test), env...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Skipf("cannot start a child process as an unprivileged user: %v", err)
		}
	}
	return strings.TrimSpace(string(b)), cmd.ProcessState.ExitCode()
}

// Child reports whether this process is the child Run started for test.
func Child(test string) bool { return os.Getenv(EnvChild) == test }
