package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/internal/unprivileged"
)

// TestCheck: every refusal names the path given, and the input is never an
// output, whatever its spelling, even with replace.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.gguf")
	other := filepath.Join(dir, "other.gguf")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(in, filepath.Join(dir, "sym.gguf")))
	must(os.Link(in, filepath.Join(dir, "hard.gguf")))
	must(os.Symlink(filepath.Join(dir, "nothing"), filepath.Join(dir, "dangling.gguf")))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.Symlink(dir, filepath.Join(dir, "dirlink")))
	t.Chdir(dir)
	cases := []struct {
		target  string
		replace bool
		want    string // "" for no error
	}{
		{"new.gguf", false, ""},
		{"sub/new.gguf", false, ""},
		{"other.gguf", false, "other.gguf: already exists; not replaced (--force replaces it)"},
		{"other.gguf", true, ""},
		{"dangling.gguf", false, "dangling.gguf: already exists"},
		{"dangling.gguf", true, ""},
		{in, true, "the output would be the input"},
		{"in.gguf", true, "in.gguf: is the input " + in},
		{"./sub/../in.gguf", true, "is the input"},
		{"sym.gguf", true, "sym.gguf: is the input"},
		{"hard.gguf", true, "hard.gguf: is the input"},
		{"dirlink/in.gguf", true, "dirlink/in.gguf: is the input"},
		{"sub", true, "sub: is a folder; give the output a file name"},
		{"sub/", false, "sub/: is a folder"},
		{"nodir/out.gguf", false, "nodir/out.gguf: the folder nodir does not exist"},
		{"other.gguf/out.gguf", false, "other.gguf/out.gguf: other.gguf is not a folder"},
		{"/dev/null", true, "/dev/null: is not a regular file"},
		{"", false, "the output path is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.target, func(t *testing.T) {
			err := Check(tc.target, tc.replace, in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), ".tmp-"):
				t.Fatalf("the error names a temporary: %v", err)
			}
		})
	}
	var ee *ExistsError
	if err := Check("other.gguf", false); !errors.As(err, &ee) || ee.Path != "other.gguf" {
		t.Fatalf("not an ExistsError: %v", err)
	}
	if names := listDir(t, dir); len(names) != 7 {
		t.Fatalf("Check left files: %v", names)
	}
}

// TestDirError: the reasons a folder takes no files, named with the path
// given (a read-only file system cannot be mounted by a test).
func TestDirError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "open", Path: "d/.o.tmp-p1-x", Err: syscall.EROFS}, "o: the folder d is on a read-only file system"},
		{&os.PathError{Op: "open", Path: "d/.o.tmp-p1-x", Err: syscall.EACCES}, "o: no permission to create files in the folder d"},
		{&os.PathError{Op: "open", Path: "d/.o.tmp-p1-x", Err: syscall.ENOSPC}, "o: cannot create files in the folder d: no space left on device"},
	} {
		if got := dirError("o", "the folder d", tc.err).Error(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestCheckUnprivileged: a folder without write permission, and Create in
// one, as a user without privileges (root would pass both).
func TestCheckUnprivileged(t *testing.T) {
	dir := unprivileged.Dir(t)
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	out, code := unprivileged.Run(t, "TestCheckChild", "ATOMICFILE_CHECK_DIR="+dir)
	if code != 0 {
		t.Fatalf("child: status %d\n%s", code, out)
	}
	want := []string{
		"check: " + ro + "/out.gguf: no permission to create files in the folder " + ro,
		"create: " + ro + "/out.gguf: cannot create the output: permission denied",
		"check: ok",
	}
	if got := strings.Split(out, "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("child said\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
}

// TestCheckChild is TestCheckUnprivileged's child.
func TestCheckChild(t *testing.T) {
	if !unprivileged.Child("TestCheckChild") {
		t.Skip("child process of TestCheckUnprivileged")
	}
	dir := os.Getenv("ATOMICFILE_CHECK_DIR")
	target := filepath.Join(dir, "ro", "out.gguf")
	fmt.Println("check:", Check(target, false))
	if _, err := Create(target, 0o644); err != nil {
		fmt.Println("create:", err)
	} else {
		fmt.Println("create: ok")
	}
	if err := Check(filepath.Join(dir, "out.gguf"), false); err == nil {
		fmt.Println("check: ok")
	}
	os.Exit(0)
}

// TestCreateNewRefusesAtCommit: a file that appears at the target while an
// exclusive output is written is kept, the output removed.
func TestCreateNewRefusesAtCommit(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "out.gguf")
		f, err := CreateNew(target, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Abort()
		f.WriteString("new")
		if err := os.WriteFile(target, []byte("theirs"), 0o644); err != nil {
			t.Fatal(err)
		}
		err = f.Commit()
		if err == nil || !strings.Contains(err.Error(), target+": a file appeared there") {
			t.Fatalf("Commit: %v", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "theirs" {
			t.Fatalf("target is %q", b)
		}
		if names := listDir(t, dir); len(names) != 1 {
			t.Fatalf("left: %v", names)
		}
		// Without the intruder it commits.
		os.Remove(target)
		g, err := CreateNew(target, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		g.WriteString("new")
		if err := g.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Fatalf("target is %q", b)
		}
		if names := listDir(t, dir); len(names) != 1 {
			t.Fatalf("left: %v", names)
		}
	})
}
