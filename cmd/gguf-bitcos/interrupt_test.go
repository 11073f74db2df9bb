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

	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
)

// TestInterruptLeavesNothing runs repack (one file and shards) and unpack in
// a child process, stops them at the last moment (the output complete, not
// yet named) with SIGINT, SIGTERM or SIGKILL, and checks that nothing is
// left in the output folder, and that a later run there works.
func TestInterruptLeavesNothing(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signals and O_TMPFILE: Linux")
	}
	work := t.TempDir()
	packed := filepath.Join(work, "p.gguf")
	if code := run([]string{"repack", "-q", fixture, "-o", packed}, &bytes.Buffer{}, &bytes.Buffer{}); code != 0 {
		t.Fatal("repack failed")
	}
	for _, verb := range []string{"repack", "repack-split", "unpack"} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
			t.Run(fmt.Sprintf("%s/%v", verb, sig), func(t *testing.T) {
				dir := t.TempDir()
				args := []string{"repack", "-q", fixture, "-o", filepath.Join(dir, "o.gguf")}
				switch verb {
				case "repack-split": // several shards, committed as a set
					args = append(args, "--split-max-tensors", "7")
				case "unpack":
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
