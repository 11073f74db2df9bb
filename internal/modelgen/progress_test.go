package modelgen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TestWriteProgress: progress grows, and reaches its total once, when the
// file is complete.
func TestWriteProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	var calls, last, total int64
	err := WriteProgress(path, Small(ggufx.TypeTQ2_0, 3), func(done, tot int64) {
		if done < last || done > tot || (total != 0 && tot != total) {
			t.Fatalf("progress %d of %d after %d of %d", done, tot, last, total)
		}
		if done == tot {
			if _, err := os.Stat(path); err != nil {
				t.Fatal("progress reached its total before the file was there")
			}
		}
		calls++
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 5 || last != total {
		t.Fatalf("%d calls, ended at %d of %d", calls, last, total)
	}
}
