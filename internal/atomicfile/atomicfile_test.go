package atomicfile

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func forEachMode(t *testing.T, fn func(t *testing.T)) {
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			old := forceNamed
			forceNamed = named
			defer func() { forceNamed = old }()
			fn(t)
		})
	}
}

func TestCommitReplacesAtomically(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out.gguf")
		if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Create(target, 0o640)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Abort()
		if _, err := f.WriteString("new content"); err != nil {
			t.Fatal(err)
		}
		// Before Commit the target is untouched and the content readable.
		if b, _ := os.ReadFile(target); string(b) != "old" {
			t.Fatalf("target changed before Commit: %q", b)
		}
		if b, err := os.ReadFile(f.ReadPath()); err != nil || string(b) != "new content" {
			t.Fatalf("ReadPath: %q, %v", b, err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new content" {
			t.Fatalf("after Commit: %q", b)
		}
		st, _ := os.Stat(target)
		if runtime.GOOS != "windows" && st.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", st.Mode().Perm())
		}
		if got := listDir(t, dir); len(got) != 1 {
			t.Errorf("directory holds %v, want only out.gguf", got)
		}
		if err := f.Commit(); err == nil {
			t.Error("a second Commit succeeded")
		}
	})
}

func TestAbortLeavesNothing(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		f, err := Create(filepath.Join(dir, "out.gguf"), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("partial")
		f.Abort()
		f.Abort()
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("directory holds %v after Abort", got)
		}
	})
}

func TestCleanupAbortsLiveOutputsAndRunsCleanups(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		f, err := Create(filepath.Join(dir, "out.gguf"), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		ran, cancelled := false, false
		OnInterrupt(func() { ran = true })
		cancel := OnInterrupt(func() { cancelled = true })
		cancel()
		Cleanup()
		if !ran || cancelled {
			t.Errorf("cleanup ran %v, cancelled cleanup ran %v", ran, cancelled)
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("directory holds %v after Cleanup", got)
		}
		if err := f.Commit(); err == nil {
			t.Error("Commit after Cleanup succeeded")
		}
	})
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	// A pid that cannot be running: above every pid_max.
	dead := filepath.Join(dir, ".m.gguf.tmp-p99999999-abc")
	mine := filepath.Join(dir, fmt.Sprintf(".m.gguf.tmp-p%d-abc", os.Getpid()))
	other := filepath.Join(dir, ".m.gguf.tmp-notours")
	oldLegacy := filepath.Join(dir, ".m.gguf.tmp-123456")
	newLegacy := filepath.Join(dir, ".n.gguf.tmp-654321")
	for _, p := range []string{dead, mine, other, oldLegacy, newLegacy} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	day := time.Now().Add(-25 * time.Hour)
	os.Chtimes(oldLegacy, day, day)
	var logged []string
	Logf = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	defer func() { Logf = nil }()
	RemoveStale(dir)
	want := map[string]bool{dead: false, oldLegacy: false, mine: true, other: true, newLegacy: true}
	if runtime.GOOS == "windows" {
		want[dead] = true // no way to ask whether a pid runs
	}
	for p, keep := range want {
		if _, err := os.Stat(p); (err == nil) != keep {
			t.Errorf("%s: kept=%v, want %v", filepath.Base(p), err == nil, keep)
		}
	}
	if len(logged) == 0 || !strings.Contains(logged[0], "interrupted run") {
		t.Errorf("no message about the removal: %q", logged)
	}
}

// TestInterruptedWriter runs a child process that starts an output, writes,
// and is then sent a signal: SIGINT and SIGTERM leave nothing; SIGKILL
// leaves nothing with anonymous files and a stale temporary (removed by the
// next Create) with named ones.
func TestInterruptedWriter(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX here")
	}
	for _, tc := range []struct {
		sig   syscall.Signal
		named bool
		code  int
	}{
		{syscall.SIGINT, false, 130}, {syscall.SIGINT, true, 130},
		{syscall.SIGTERM, false, 143}, {syscall.SIGTERM, true, 143},
		{syscall.SIGKILL, false, -1}, {syscall.SIGKILL, true, -1},
	} {
		t.Run(fmt.Sprintf("%v/named=%v", tc.sig, tc.named), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD_DIR="+dir, fmt.Sprintf("ATOMICFILE_CHILD_NAMED=%v", tc.named))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(out).ReadString('\n')
			if !strings.HasPrefix(line, "writing") {
				cmd.Process.Kill()
				t.Fatalf("child said %q", line)
			}
			cmd.Process.Signal(tc.sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			left := listDir(t, dir)
			if tc.sig != syscall.SIGKILL || !tc.named {
				if len(left) != 0 {
					t.Fatalf("left behind: %v", left)
				}
				return
			}
			if len(left) != 1 {
				t.Fatalf("after SIGKILL with a named temporary: %v", left)
			}
			f, err := Create(filepath.Join(dir, "other.gguf"), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			f.Abort()
			if left := listDir(t, dir); len(left) != 0 {
				t.Errorf("the next Create left %v", left)
			}
		})
	}
}

// TestChildWriter is the child of TestInterruptedWriter.
func TestChildWriter(t *testing.T) {
	dir := os.Getenv("ATOMICFILE_CHILD_DIR")
	if dir == "" {
		t.Skip("child process of TestInterruptedWriter")
	}
	forceNamed = os.Getenv("ATOMICFILE_CHILD_NAMED") == "true"
	HandleInterrupts(nil)
	f, err := Create(filepath.Join(dir, "out.gguf"), 0o644)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	f.Write(make([]byte, 1<<20))
	fmt.Println("writing")
	for {
		f.Write(make([]byte, 4096))
		time.Sleep(time.Millisecond)
	}
}
