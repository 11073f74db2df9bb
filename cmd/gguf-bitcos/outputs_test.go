package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/internal/unprivileged"
)

// copyFixture copies testdata/name into dir.
func copyFixture(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshot is the content of every file under dir, by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// TestNoVerbReplacesAFile: every verb that writes refuses, before any
// work, an output that exists (unless --force), that is its input through
// any spelling (even with --force), a folder, or in a folder that does not
// exist; the refusal names the path given, and the folder is left as it
// was: nothing replaced, nothing partial.
func TestNoVerbReplacesAFile(t *testing.T) {
	type tc struct {
		name string
		args []string // relative to the test's folder, where it runs
		code int
		want string // in stderr
	}
	cases := []tc{
		{"repack over a file", []string{"repack", "-q", "tiny-tq2_0.gguf", "notes.txt"}, 1, "notes.txt: already exists; not replaced (--force replaces it)"},
		{"repack -o over a file", []string{"repack", "-q", "tiny-tq2_0.gguf", "-o", "notes.txt"}, 1, "notes.txt: already exists"},
		{"repack onto its input", []string{"repack", "-q", "--force", "tiny-tq2_0.gguf", "tiny-tq2_0.gguf"}, 1, "the output would be the input"},
		{"repack onto its input, other spelling", []string{"repack", "-q", "--force", "tiny-tq2_0.gguf", "sub/../tiny-tq2_0.gguf"}, 1, "is the input tiny-tq2_0.gguf"},
		{"repack onto its input by a link", []string{"repack", "-q", "--force", "link.gguf", "tiny-tq2_0.gguf"}, 1, "tiny-tq2_0.gguf: is the input link.gguf"},
		{"repack default name taken", []string{"repack", "-q", "tiny-i2_s.gguf"}, 1, "tiny-BITCOS.gguf: already exists"},
		{"repack shards over a shard", []string{"repack", "-q", "--split-max-tensors", "12", "tiny-tq2_0.gguf", "-o", "m.gguf"}, 1, "m-00001-of-00002.gguf: already exists"},
		{"repack into a folder", []string{"repack", "-q", "tiny-tq2_0.gguf", "sub"}, 1, "sub: is a folder; give the output a file name"},
		{"repack into a folder, slash", []string{"repack", "-q", "--force", "tiny-tq2_0.gguf", "sub/"}, 1, "sub/: is a folder"},
		{"repack into no folder", []string{"repack", "-q", "tiny-tq2_0.gguf", "nodir/h.gguf"}, 1, "nodir/h.gguf: the folder nodir does not exist"},
		{"unpack over the original", []string{"unpack", "tiny-BITCOS.gguf", "tiny-tq2_0.gguf"}, 1, "tiny-tq2_0.gguf: already exists"},
		{"unpack onto its input", []string{"unpack", "--force", "tiny-BITCOS.gguf", "./tiny-BITCOS.gguf"}, 1, "is the input"},
		{"unpack default name taken", []string{"unpack", "tiny-BITCOS.gguf"}, 1, "tiny.unpacked.gguf: already exists"},
		{"gen over a file", []string{"gen", "-q", "notes.txt"}, 1, "notes.txt: already exists"},
		{"gen over config.json", []string{"gen", "-q", "--type", "bf16", "--layers", "1", "x.safetensors"}, 1, "config.json: already exists"},
		{"gen fixtures over fixtures", []string{"gen", "fixtures", "."}, 1, "tiny-tq2_0.gguf: already exists"},
		{"gen into a folder", []string{"gen", "-q", "--force", "sub"}, 1, "sub: is a folder"},
		{"card over a README", []string{"card", "tiny-BITCOS.gguf", "-o", "."}, 1, "README.md already exists"},
	}
	setup := func(t *testing.T) string {
		dir := t.TempDir()
		copyFixture(t, dir, "tiny-tq2_0.gguf")
		copyFixture(t, dir, "tiny-i2_s.gguf")
		for name, body := range map[string]string{"notes.txt": "notes\n", "config.json": "{}\n", "README.md": "mine\n",
			"m-00001-of-00002.gguf": "a shard\n", "tiny.unpacked.gguf": "mine\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		os.Symlink("tiny-tq2_0.gguf", filepath.Join(dir, "link.gguf"))
		t.Chdir(dir)
		var o, e bytes.Buffer
		if code := run([]string{"repack", "-q", "tiny-tq2_0.gguf"}, &o, &e); code != 0 {
			t.Fatal(e.String())
		}
		return dir
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := setup(t)
			before := snapshot(t, dir)
			var o, e bytes.Buffer
			code := run(c.args, &o, &e)
			if code != c.code || !strings.Contains(e.String(), c.want) {
				t.Fatalf("%v: exit %d, %q; want %d, %q", c.args, code, e.String(), c.code, c.want)
			}
			if strings.Contains(e.String(), ".tmp-") {
				t.Errorf("the message names a temporary: %s", e.String())
			}
			if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Fatalf("the folder changed")
			}
			// --force replaces what is not the input.
			if strings.Contains(c.want, "already exists") {
				args := append([]string{c.args[0], "--force"}, c.args[1:]...)
				if code := run(args, &o, &e); code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, e.String())
				}
			}
		})
	}
}

// TestDefaultOutputNamesSay: a second source whose default name is taken
// is refused with the name in the way, and the first repack survives.
func TestDefaultOutputNamesSay(t *testing.T) {
	dir := t.TempDir()
	tq2 := copyFixture(t, dir, "tiny-tq2_0.gguf")
	i2s := copyFixture(t, dir, "tiny-i2_s.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", tq2}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	out := filepath.Join(dir, "tiny-BITCOS.gguf")
	if code := run([]string{"repack", "-q", i2s}, &o, &e); code != 1 ||
		!strings.Contains(e.String(), out+": already exists, and is the default output name of "+i2s+" (another source can have the same one)") {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	o.Reset()
	if code := run([]string{"verify", tq2, out}, &o, &e); code != 0 {
		t.Fatalf("the first repack was replaced: verify exit %d: %s", code, o.String())
	}
}

// TestGenFixturesMakesTheFolder: gen fixtures DIR creates DIR and names
// what it wrote.
func TestGenFixturesMakesTheFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	var o, e bytes.Buffer
	if code := run([]string{"gen", "fixtures", dir}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	if n := strings.Count(o.String(), "wrote "+dir); n != 4 {
		t.Fatalf("printed %q", o.String())
	}
}

// TestOutputPermissions: an output folder without write permission, as a
// user without privileges (root passes it): refused before any work, with
// the path given.
func TestOutputPermissions(t *testing.T) {
	dir := unprivileged.Dir(t)
	in := copyFixture(t, dir, "tiny-tq2_0.gguf")
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", in, "-o", filepath.Join(dir, "r.gguf")}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	os.Chmod(ro, 0o555)
	for _, args := range [][]string{
		{"repack", "-q", in, filepath.Join(ro, "out.gguf")},
		{"unpack", filepath.Join(dir, "r.gguf"), filepath.Join(ro, "out.gguf")},
		{"gen", "-q", filepath.Join(ro, "out.gguf")},
		{"card", filepath.Join(dir, "r.gguf"), "-o", filepath.Join(ro, "card")},
	} {
		t.Run(args[0], func(t *testing.T) {
			out, code := unprivileged.Run(t, "TestOutputPermissionsChild", "GGUF_BITCOS_ARGS="+strings.Join(args, "\n"))
			if code != 1 || !strings.Contains(out, ro) || !strings.Contains(out, "no permission to create files in the folder") {
				t.Fatalf("exit %d: %s", code, out)
			}
			if ents, _ := os.ReadDir(ro); len(ents) != 0 {
				t.Fatalf("left in the folder: %v", ents)
			}
		})
	}
}

// TestOutputPermissionsChild runs TestOutputPermissions' command line.
func TestOutputPermissionsChild(t *testing.T) {
	if !unprivileged.Child("TestOutputPermissionsChild") {
		t.Skip("child process of TestOutputPermissions")
	}
	code := run(strings.Split(os.Getenv("GGUF_BITCOS_ARGS"), "\n"), os.Stdout, os.Stdout)
	os.Exit(code)
}

// TestOutputReadOnlyFS: an output folder on a read-only file system (a
// read-only tmpfs mounted in a mount namespace of the child's own, with
// unshare): refused before any work, with the path given.
func TestOutputReadOnlyFS(t *testing.T) {
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1): cannot mount a read-only file system for the test")
	}
	dir := t.TempDir()
	in := copyFixture(t, dir, "tiny-tq2_0.gguf")
	rep := filepath.Join(dir, "r.gguf")
	var o, e bytes.Buffer
	if code := run([]string{"repack", "-q", in, "-o", rep}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"repack", "-q", in, filepath.Join(ro, "out.gguf")},
		{"unpack", rep, filepath.Join(ro, "out.gguf")},
		{"gen", "-q", filepath.Join(ro, "out.gguf")},
		{"card", rep, "-o", filepath.Join(ro, "card")},
	} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command(unshare, "-rm", "sh", "-c", `mount -t tmpfs -o ro none "$1" || exit 99; shift; exec "$@"`,
				"sh", ro, os.Args[0], "-test.run=^TestOutputPermissionsChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), unprivileged.EnvChild+"=TestOutputPermissionsChild", "GGUF_BITCOS_ARGS="+strings.Join(args, "\n"))
			b, _ := cmd.CombinedOutput()
			out, code := string(b), cmd.ProcessState.ExitCode()
			if code == 99 || strings.Contains(out, "unshare:") {
				t.Skipf("cannot mount a read-only file system here: %s", strings.TrimSpace(out))
			}
			if code != 1 || !strings.Contains(out, ro) || !strings.Contains(out, "is on a read-only file system") {
				t.Fatalf("exit %d: %s", code, out)
			}
		})
	}
}
