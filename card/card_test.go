package card

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// repackFixture repacks the committed TQ2_0 fixture into dir.
func repackFixture(t *testing.T, dir string) (orig, out string) {
	t.Helper()
	orig = filepath.Join("..", "testdata", "tiny-tq2_0.gguf")
	out = filepath.Join(dir, "tiny.bitcos.gguf")
	if _, err := repack.Repack(orig, repack.Options{Output: out}); err != nil {
		t.Fatal(err)
	}
	return orig, out
}

func TestWriteRefusesAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	orig, out := repackFixture(t, dir)
	cases := []struct {
		name  string
		setup func(t *testing.T) Options
		want  string // in the error; "" for success
		check func(t *testing.T, opt Options)
	}{
		{"default directory", func(t *testing.T) Options {
			t.Chdir(t.TempDir())
			return Options{Model: out, Source: orig}
		}, "", func(t *testing.T, opt Options) {
			if _, err := os.Stat(filepath.Join("tiny.bitcos-card", ReadmeFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"README exists", func(t *testing.T) Options {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, ReadmeFile), []byte("mine"), 0o644)
			return Options{Model: out, Dir: d}
		}, "README.md already exists: give --force", func(t *testing.T, opt Options) {
			if b, _ := os.ReadFile(filepath.Join(opt.Dir, ReadmeFile)); string(b) != "mine" {
				t.Fatal("README.md was replaced")
			}
			if _, err := os.Stat(filepath.Join(opt.Dir, ChartFile)); err == nil {
				t.Fatal("the chart was written although the card was refused")
			}
		}},
		{"README exists, --force", func(t *testing.T) Options {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, ReadmeFile), []byte("mine"), 0o644)
			return Options{Model: out, Dir: d, Force: true}
		}, "", func(t *testing.T, opt Options) {
			if b, _ := os.ReadFile(filepath.Join(opt.Dir, ReadmeFile)); !strings.HasPrefix(string(b), "# ") {
				t.Fatalf("README.md not replaced: %q", b)
			}
		}},
		{"no BITCOS tensor", func(t *testing.T) Options {
			return Options{Model: orig, Dir: filepath.Join(t.TempDir(), "a", "b")}
		}, "no BITCOS tensor in this file", func(t *testing.T, opt Options) {
			if _, err := os.Stat(filepath.Dir(opt.Dir)); err == nil {
				t.Fatal("a directory was left behind")
			}
		}},
		{"unwritable directory", func(t *testing.T) Options {
			d := t.TempDir()
			blocker := filepath.Join(d, "file")
			os.WriteFile(blocker, nil, 0o644)
			return Options{Model: out, Dir: filepath.Join(blocker, "x")}
		}, "not a directory", func(t *testing.T, opt Options) {
			if ents, _ := os.ReadDir(filepath.Dir(filepath.Dir(opt.Dir))); len(ents) != 1 {
				t.Fatalf("left behind: %v", ents)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := c.setup(t)
			_, err := Write(opt)
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
			c.check(t, opt)
		})
	}
}

func TestCardNamesTheSource(t *testing.T) {
	dir := t.TempDir()
	orig, out := repackFixture(t, dir)
	paths, err := Write(Options{Model: out, Source: orig, Dir: filepath.Join(dir, "card")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(paths[0])
	if !strings.Contains(string(b), "gguf-bitcos verify tiny-tq2_0.gguf tiny.bitcos.gguf") {
		t.Fatalf("the card does not name its source in the verify command:\n%s", b)
	}
}
