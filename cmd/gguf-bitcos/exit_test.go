package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

const fixture = "../../testdata/tiny-tq2_0.gguf"

// TestExitStatuses checks the documented exit statuses and that a usage
// error prints the usage line.
func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.gguf")
	if code := run([]string{"repack", "-q", fixture, "-o", out}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("repack failed")
	}
	// The version KV renamed: every verb refuses it (exit 1) with a message
	// naming the file, and none panics (issue 9, finding 1).
	good, _ := os.ReadFile(out)
	bad, err := corrupt.Rewrite(good, func(h *ggufx.Header) { corrupt.RenameKV(h, repack.KeyVersion, "bitcos.versioX") })
	if err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(dir, "renamed.gguf")
	os.WriteFile(renamed, bad, 0o644)
	cases := []struct {
		args []string
		code int
		err  string // in stderr
	}{
		{[]string{"verify", fixture, out}, 0, ""},
		{[]string{"verify", "--fast", fixture, out}, 0, ""},
		{[]string{"verify", "../../testdata/tiny-q2_0.gguf", out}, 2, "differ"},
		{[]string{"stats", renamed}, 1, "renamed.gguf: holds BITCOS data or bitcos.* keys but no bitcos.version"},
		{[]string{"stats", "--json", renamed}, 1, "no bitcos.version"},
		{[]string{"card", renamed, "-o", filepath.Join(dir, "c")}, 1, "no bitcos.version"},
		{[]string{"verify", fixture, renamed}, 1, "no bitcos.version"},
		{[]string{"unpack", renamed, "-o", filepath.Join(dir, "u.gguf")}, 1, "no bitcos.version"},
		{[]string{"verify", fixture}, 64, "Usage: gguf-bitcos verify ORIGINAL.gguf REPACKED.gguf"},
		{[]string{"repack"}, 64, "Usage: gguf-bitcos repack"},
		{[]string{"repack", fixture, "--no-such-flag"}, 64, "unknown flag: --no-such-flag"},
		{[]string{"repack", fixture, "--head", "q9_9"}, 64, "Usage: gguf-bitcos repack"},
		{[]string{"repack", fixture, "--split-max-size", "1G", "--split-max-tensors", "3"}, 64, "not both"},
		{[]string{"repack", fixture, "--split-max-size", "lots"}, 64, "split size"},
		{[]string{"no-such-verb"}, 64, "unknown command"},
		{[]string{"stats", filepath.Join(dir, "missing.gguf")}, 1, "missing.gguf"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var o, e bytes.Buffer
			code := run(c.args, &o, &e)
			if code != c.code || !strings.Contains(e.String(), c.err) {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, e.String(), c.code, c.err)
			}
			if strings.Contains(e.String(), "panic") || strings.Contains(e.String(), "goroutine") {
				t.Fatalf("a panic: %s", e.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "u.gguf")); err == nil {
		t.Error("unpack wrote an output for a refused file")
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); err == nil {
		t.Error("card left a directory for a refused file")
	}
}

// TestPanicExits70: a panic is reported as an internal error with its own
// status, and no output survives it.
func TestPanicExits70(t *testing.T) {
	dir := t.TempDir()
	atomicfile.BeforeCommit = func(string) { panic("injected") }
	defer func() { atomicfile.BeforeCommit = nil }()
	var o, e bytes.Buffer
	code := run([]string{"repack", "-q", fixture, "-o", filepath.Join(dir, "o.gguf")}, &o, &e)
	if code != 70 || !strings.Contains(e.String(), "internal error (a bug in gguf-bitcos") {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestInterruptLeavesNothing runs repack and unpack in a child process,
// stops them at the last moment (the output complete, not yet named) with
// SIGINT, SIGTERM or SIGKILL, and checks that nothing is left in the output
// folder, and that a later run there works (issue 9, finding 4).
func TestInterruptLeavesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals and O_TMPFILE: Linux")
	}
	work := t.TempDir()
	packed := filepath.Join(work, "p.gguf")
	if code := run([]string{"repack", "-q", fixture, "-o", packed}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("repack failed")
	}
	for _, verb := range []string{"repack", "unpack"} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
			t.Run(fmt.Sprintf("%s/%v", verb, sig), func(t *testing.T) {
				dir := t.TempDir()
				args := []string{"repack", "-q", fixture, "-o", filepath.Join(dir, "o.gguf")}
				if verb == "unpack" {
					args = []string{"unpack", packed, "-o", filepath.Join(dir, "o.gguf")}
				}
				cmd := exec.Command(os.Args[0], "-test.run=^TestChildCLI$")
				cmd.Env = append(os.Environ(), "GGUF_BITCOS_CHILD_ARGS="+strings.Join(args, "\x1f"))
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				pipe, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				line, _ := bufio.NewReader(pipe).ReadString('\n')
				if !strings.HasPrefix(line, "committing") {
					cmd.Process.Kill()
					t.Fatalf("child said %q, %s", line, stderr.String())
				}
				cmd.Process.Signal(sig)
				cmd.Wait()
				want := map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGKILL: -1}[sig]
				if code := cmd.ProcessState.ExitCode(); code != want {
					t.Errorf("exit %d, want %d (%s)", code, want, stderr.String())
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Fatalf("left behind: %v", ents)
				}
				if sig != syscall.SIGKILL && !strings.Contains(stderr.String(), "interrupted") {
					t.Errorf("no word of the interrupt: %q", stderr.String())
				}
			})
		}
	}
}

// TestChildCLI is the child process of TestInterruptLeavesNothing: it runs
// the CLI and stops before the first commit.
func TestChildCLI(t *testing.T) {
	args := os.Getenv("GGUF_BITCOS_CHILD_ARGS")
	if args == "" {
		t.Skip("child process of TestInterruptLeavesNothing")
	}
	atomicfile.HandleInterrupts(func(sig os.Signal) { fmt.Fprintf(os.Stderr, "interrupted (%v)\n", sig) })
	atomicfile.BeforeCommit = func(string) {
		fmt.Println("committing")
		time.Sleep(time.Minute)
	}
	os.Exit(run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
}
