package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// createAll starts one output per name in dir, each holding its name.
func createAll(t *testing.T, dir string, names ...string) []*File {
	t.Helper()
	var files []*File
	for _, n := range names {
		f, err := Create(filepath.Join(dir, n), 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Abort)
		if _, err := f.WriteString(n); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func TestCommitAllNamesTheSet(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		var seen []string
		BeforeCommit = func(target string) {
			seen = append(seen, filepath.Base(target))
			// Nothing is named before every file is complete and synced.
			var visible []string
			for _, n := range listDir(t, dir) {
				if n[0] != '.' {
					visible = append(visible, n)
				}
			}
			if !slices.Equal(visible, []string{"b"}) {
				t.Errorf("before the commit the directory shows %v", visible)
			}
		}
		defer func() { BeforeCommit = nil }()
		if err := os.WriteFile(filepath.Join(dir, "b"), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		names := []string{"a", "b", "c"}
		if err := CommitAll(createAll(t, dir, names...)...); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(seen, names) {
			t.Errorf("BeforeCommit saw %v", seen)
		}
		if got := listDir(t, dir); !slices.Equal(got, names) {
			t.Fatalf("directory holds %v, want %v", got, names)
		}
		for _, n := range names {
			if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != n {
				t.Errorf("%s holds %q", n, b)
			}
		}
	})
}

// TestCommitAllFailureRemovesTheSet: when one rename fails (its target is a
// non-empty directory), the files already renamed are removed with the
// temporaries of the others; the directory that made it fail is untouched,
// and Cleanup has nothing left to do.
func TestCommitAllFailureRemovesTheSet(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "b", "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		files := createAll(t, dir, "a", "b", "c")
		if err := CommitAll(files...); err == nil {
			t.Fatal("CommitAll succeeded over a non-empty directory")
		}
		if got := listDir(t, dir); !slices.Equal(got, []string{"b"}) {
			t.Fatalf("after the failed commit the directory holds %v, want only b", got)
		}
		if got := listDir(t, filepath.Join(dir, "b")); !slices.Equal(got, []string{"x"}) {
			t.Fatalf("the directory b holds %v", got)
		}
		if err := files[0].Commit(); err == nil {
			t.Error("a file of a failed set committed afterwards")
		}
	})
}

// TestCommitAllRefusesADoneFile: a set holding a file already aborted
// commits nothing and discards the rest.
func TestCommitAllRefusesADoneFile(t *testing.T) {
	forEachMode(t, func(t *testing.T) {
		dir := t.TempDir()
		files := createAll(t, dir, "a", "b")
		files[1].Abort()
		if err := CommitAll(files...); err == nil {
			t.Fatal("CommitAll accepted an aborted file")
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Fatalf("directory holds %v", got)
		}
	})
}
