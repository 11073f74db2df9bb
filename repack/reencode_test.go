package repack

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TestRedundantBytesKept: a TQ1_0 tensor holding a byte the reference
// encoder never writes (1: five -1 trits, written as 0) is kept by repack,
// and stats predicts the same, so that unpack still gives the file back byte
// for byte. Repack decodes every candidate while stats counts what it can in
// place: both ask reencodes, and this test holds them to one answer.
func TestRedundantBytesKept(t *testing.T) {
	in := genModel(t, wideSpec(ggufx.TypeTQ1_0, 3))
	dir := filepath.Dir(in)
	clean, err := Repack(in, Options{Output: filepath.Join(dir, "clean.gguf")})
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, d := range clean.Tensors {
		if d.Layout == LayoutBitcos {
			name = d.Name
			break
		}
	}
	if name == "" {
		t.Fatal("no tensor converted in the clean model")
	}
	data, _ := os.ReadFile(in)
	f, err := ggufx.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := f.Tensor(name)
	off := f.DataOffset + f.Tensors[i].Offset // qs[0] of the first block
	f.Close()
	if data[off] == 1 {
		t.Fatal("the generator wrote a non-canonical byte")
	}
	data[off] = 1
	bad := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}

	const want = "not in canonical form"
	out := filepath.Join(dir, "out.gguf")
	rep, err := Repack(bad, Options{Output: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Tensors {
		if d.Name == name && (d.Layout != LayoutKept || !strings.Contains(d.Reason, want)) {
			t.Errorf("repack: %s is %s (%q), want kept: %s", name, d.Layout, d.Reason, want)
		}
	}
	if rep.Converted != clean.Converted-1 {
		t.Errorf("repack converted %d tensors, want %d", rep.Converted, clean.Converted-1)
	}
	fs, err := Stats(bad, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, ts := range fs.Tensors {
		if ts.Name == name {
			found = true
			if ts.Layout != LayoutKept || !strings.Contains(ts.Reason, want) {
				t.Errorf("stats: %s is %s (%q), want kept: %s", name, ts.Layout, ts.Reason, want)
			}
		}
	}
	if !found || fs.RepackBytes != rep.OutputBytes {
		t.Errorf("stats: found %v, predicted %d bytes, repack wrote %d", found, fs.RepackBytes, rep.OutputBytes)
	}
	back := filepath.Join(dir, "back.gguf")
	if err := Unpack(out, back, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(back); !bytes.Equal(got, data) {
		t.Fatal("unpack is not byte-identical")
	}
}
