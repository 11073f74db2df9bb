package compat

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// TestHubLabel reads a repack with the Hugging Face hub's own GGUF library
// (@huggingface/gguf, from the npm registry): neither the default file name
// nor general.file_type may label it with its source type. Set
// GGUF_BITCOS_HF_GGUF to a folder where `npm install @huggingface/gguf` ran.
func TestHubLabel(t *testing.T) {
	dir := os.Getenv("GGUF_BITCOS_HF_GGUF")
	if dir == "" {
		t.Skip("GGUF_BITCOS_HF_GGUF is not set (a folder with @huggingface/gguf installed by npm)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	work := t.TempDir()
	src := filepath.Join(work, "model-TQ2_0.gguf")
	data, _ := os.ReadFile(filepath.Join("..", "testdata", "tiny-tq2_0.gguf"))
	os.WriteFile(src, data, 0o644)
	rep, err := repack.Repack(src, repack.Options{})
	if err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile(filepath.Join("testdata", "hf_gguf_label.mjs"))
	sp := filepath.Join(dir, "gguf-bitcos-label-check.mjs") // beside node_modules, for the import
	if err := os.WriteFile(sp, script, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(sp)
	out, err := exec.Command(node, sp, src, rep.Output).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got []hubView
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var one hubView
		if err := json.Unmarshal([]byte(line), &one); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		got = append(got, one)
	}
	if len(got) != 2 || got[0].Label == nil || *got[0].Label != "TQ2_0" || got[0].FileTypeName == nil || *got[0].FileTypeName != "TQ2_0" {
		t.Fatalf("the source is not read as TQ2_0 (the check would prove nothing): %+v", got)
	}
	b := got[1]
	if filepath.Base(b.Name) != "model-BITCOS.gguf" || b.Label != nil || b.FileType != bitcos.FileTypeBITCOS || b.FileTypeName != nil {
		t.Fatalf("the repack is labelled: %+v (label %v, file type name %v)", b, deref(b.Label), deref(b.FileTypeName))
	}
}

// hubView is what the script prints of a file, as @huggingface/gguf reads it.
type hubView struct {
	Name         string  `json:"name"`
	Label        *string `json:"label"`
	FileType     int     `json:"file_type"`
	FileTypeName *string `json:"file_type_name"`
}

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
