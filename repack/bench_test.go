package repack

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// benchModel is the model the repack benchmarks run on: $GGUF_BITCOS_BENCH_MODEL
// (e.g. `gguf-bitcos gen --shape 2b /path/2b.gguf`, 1.2 GB) or a small
// generated one. Compare BenchmarkRepack with BenchmarkCopy side by side:
//
//	go test ./repack -run '^$' -bench 'Repack$|Copy$' -benchtime 3x
func benchModel(b *testing.B) string {
	if p := os.Getenv("GGUF_BITCOS_BENCH_MODEL"); p != "" {
		return p
	}
	s := modelgen.Small(ggufx.TypeTQ2_0, 1)
	s.NEmbd, s.NFF, s.NLayer, s.NHead, s.NHeadKV = 1024, 2816, 4, 8, 2
	return genModel(b, s)
}

func BenchmarkRepack(b *testing.B) {
	in := benchModel(b)
	st, _ := os.Stat(in)
	out := filepath.Join(b.TempDir(), "out.gguf")
	b.SetBytes(st.Size())
	for b.Loop() {
		if _, err := Repack(in, Options{Output: out}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopy is the baseline: a plain io.Copy (copy_file_range on Linux)
// and fsync of the same file.
func BenchmarkCopy(b *testing.B) {
	in := benchModel(b)
	st, _ := os.Stat(in)
	out := filepath.Join(b.TempDir(), "copy.gguf")
	b.SetBytes(st.Size())
	for b.Loop() {
		src, _ := os.Open(in)
		dst, _ := os.Create(out)
		if _, err := io.Copy(dst, src); err != nil {
			b.Fatal(err)
		}
		dst.Sync()
		dst.Close()
		src.Close()
	}
}

func BenchmarkVerify(b *testing.B) {
	in := benchModel(b)
	st, _ := os.Stat(in)
	out := filepath.Join(b.TempDir(), "out.gguf")
	if _, err := Repack(in, Options{Output: out}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if v, err := Verify(in, out); err != nil || !v.OK() {
			b.Fatal(err)
		}
	}
}
