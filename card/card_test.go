package card

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/corrupt"
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
			if b, _ := os.ReadFile(filepath.Join(opt.Dir, ReadmeFile)); !strings.Contains(string(b), "\n# ") {
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
		}, "file: is not a folder", func(t *testing.T, opt Options) {
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

// TestFrontMatter: the card starts with YAML front matter the hub reads,
// filled from general.* and overridable; it parses as YAML whatever the
// strings hold.
func TestFrontMatter(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(filepath.Join("..", "testdata", "tiny-tq2_0.gguf"))
	withMeta, err := corrupt.Rewrite(data, func(h *ggufx.Header) {
		h.KVs = append(h.KVs,
			ggufx.KVString("general.license", "mit"),
			ggufx.KVUint32("general.base_model.count", 2),
			ggufx.KVString("general.base_model.0.name", "bitnet-b1.58-2B-4T"),
			ggufx.KVString("general.base_model.0.organization", "Microsoft"),
			ggufx.KVString("general.base_model.0.repo_url", "https://huggingface.co/microsoft/bitnet-b1.58-2B-4T"),
			ggufx.KVString("general.base_model.1.name", "Other Model"),
			ggufx.KVString("general.base_model.1.organization", "Some Org"),
			ggufx.KVStringArray("general.tags", []string{"text-generation", "gguf", "key: \"value\"\n- injected"}),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	orig := filepath.Join(dir, "m-TQ2_0.gguf")
	os.WriteFile(orig, data, 0o644)
	src := filepath.Join(dir, "meta-TQ2_0.gguf")
	os.WriteFile(src, withMeta, 0o644)
	rep, err := repack.Repack(src, repack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type fm struct {
		Library     string   `yaml:"library_name"`
		License     string   `yaml:"license"`
		BaseModel   []string `yaml:"base_model"`
		Relation    string   `yaml:"base_model_relation"`
		Tags        []string `yaml:"tags"`
		QuantizedBy string   `yaml:"quantized_by"`
	}
	read := func(opt Options) fm {
		t.Helper()
		opt.Model, opt.Force = rep.Output, true
		opt.Dir = filepath.Join(dir, "card")
		paths, err := Write(opt)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(paths[0])
		parts := strings.SplitN(string(b), "---\n", 3)
		if len(parts) != 3 || parts[0] != "" {
			t.Fatalf("no front matter:\n%s", b)
		}
		var m fm
		if err := yaml.Unmarshal([]byte(parts[1]), &m); err != nil {
			t.Fatalf("front matter is not YAML: %v\n%s", err, parts[1])
		}
		return m
	}
	m := read(Options{})
	want := fm{Library: "gguf", License: "mit", BaseModel: []string{"microsoft/bitnet-b1.58-2B-4T", "Some-Org/Other-Model"},
		Relation: "quantized", Tags: []string{"gguf", "bitcos", "ternary", "text-generation", "key: \"value\"\n- injected"}, QuantizedBy: "gguf-bitcos"}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("front matter %+v, want %+v", m, want)
	}
	m = read(Options{License: "apache-2.0", BaseModels: []string{"me/base"}, Tags: []string{"extra"}, QuantizedBy: "someone"})
	if m.License != "apache-2.0" || !reflect.DeepEqual(m.BaseModel, []string{"me/base"}) || m.QuantizedBy != "someone" || m.Tags[len(m.Tags)-1] != "extra" {
		t.Fatalf("overrides: %+v", m)
	}
}

// TestChartFitsItsText: the chart is wide enough for its title and legend
// for a one-layer model (every fixture), not only for its grid.
func TestChartFitsItsText(t *testing.T) {
	for _, fx := range []string{"tiny-tq2_0.gguf", "tiny-i2_s.gguf"} {
		out := filepath.Join(t.TempDir(), "r.gguf")
		if _, err := repack.Repack(filepath.Join("..", "testdata", fx), repack.Options{Output: out}); err != nil {
			t.Fatal(err)
		}
		st, err := repack.Stats(out, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		svg := zeroDensitySVG(st)
		m := regexp.MustCompile(`<svg [^>]*width="(\d+)"`).FindStringSubmatch(svg)
		if m == nil {
			t.Fatalf("%s: no width in %.100s", fx, svg)
		}
		w, _ := strconv.Atoi(m[1])
		legend := "red: z below 0.375 (BITCOS above 1.625 bits/weight), white: 0.375, blue: above; BITCOS takes 2 − z bits"
		if need := 10 + textWidth(legend, 11); w < need || w < 600 {
			t.Errorf("%s: chart %d px wide, its legend needs %d", fx, w, need)
		}
	}
}
