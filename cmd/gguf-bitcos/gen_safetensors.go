package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

// writeModel writes spec s as GGUF, or, for an OUTPUT.safetensors, as the
// Hugging Face checkpoint of the same float master (a GGUF written next to
// it first, then converted and removed).
func writeModel(out string, s modelgen.Spec, shards int, progress func(done, total int64)) error {
	if !strings.HasSuffix(out, ".safetensors") {
		if err := modelgen.WriteProgress(out, s, progress); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", filepath.Clean(out))
		return nil
	}
	tmp := strings.TrimSuffix(out, ".safetensors") + ".tmp-master.gguf"
	defer os.Remove(tmp)
	if err := modelgen.WriteProgress(tmp, s, progress); err != nil {
		return err
	}
	files, err := modelgen.WriteSafetensors(tmp, out, shards)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", filepath.Clean(f))
	}
	return nil
}
