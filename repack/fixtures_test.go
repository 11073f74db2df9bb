package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// TestCommittedFixtures repacks, verifies and unpacks every committed
// fixture, and checks the generator still writes them byte for byte (run
// `go generate ./internal/modelgen` after changing it).
func TestCommittedFixtures(t *testing.T) {
	for _, fx := range modelgen.Fixtures() {
		t.Run(fx.File, func(t *testing.T) {
			path := filepath.Join("..", "testdata", fx.File)
			committed, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fresh := filepath.Join(t.TempDir(), fx.File)
			if err := modelgen.Write(fresh, fx.Spec); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(fresh); !bytes.Equal(b, committed) {
				t.Fatalf("testdata/%s is stale: run go generate ./internal/modelgen", fx.File)
			}
			out := filepath.Join(t.TempDir(), "out.gguf")
			if _, err := Repack(path, Options{Output: out}); err != nil {
				t.Fatal(err)
			}
			v, err := Verify(path, out)
			if err != nil || !v.OK() {
				t.Fatalf("verify: %v %v", err, v)
			}
			back := filepath.Join(t.TempDir(), "back.gguf")
			if err := Unpack(out, back, false); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(back); !bytes.Equal(b, committed) {
				t.Fatal("unpack is not byte-identical")
			}
		})
	}
}
