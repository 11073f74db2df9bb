package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
)

// writeModel writes spec s as GGUF, or, for an OUTPUT.safetensors, as the
// Hugging Face checkpoint of the same float master (a GGUF written in a
// hidden folder beside it first, then converted and removed). Every file it
// would write is checked first (genOutputs): none is replaced unless force.
func writeModel(out string, s modelgen.Spec, shards int, force bool, progress func(done, total int64)) error {
	if err := checkGenOutputs(out, shards, force); err != nil {
		return err
	}
	if !strings.HasSuffix(out, ".safetensors") {
		if err := modelgen.WriteTo(out, s, force, progress); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", filepath.Clean(out))
		return nil
	}
	// .modelgen-<digits>: a stale one is removed by a later run
	// (atomicfile.RemoveStale), and no user file is in its way.
	dir, err := os.MkdirTemp(filepath.Dir(out), ".modelgen-")
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	cancel := atomicfile.OnInterrupt(func() { os.RemoveAll(dir) })
	defer cancel()
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "master.gguf")
	if err := modelgen.WriteProgress(tmp, s, progress); err != nil {
		return err
	}
	files, err := modelgen.WriteSafetensors(tmp, out, shards, force)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", filepath.Clean(f))
	}
	return nil
}

// checkGenOutputs checks every file gen would write for out: out itself,
// or for a checkpoint config.json beside it and either out or, with
// shards, the index and any existing shard of that name (a set of any
// size, which the new set would mix with).
func checkGenOutputs(out string, shards int, force bool) error {
	if !strings.HasSuffix(out, ".safetensors") {
		return atomicfile.Check(out, force)
	}
	paths := []string{filepath.Join(filepath.Dir(out), safetensors.ConfigName)}
	if shards <= 1 {
		paths = append(paths, out)
	} else {
		prefix := strings.TrimSuffix(out, ".safetensors")
		paths = append(paths, prefix+".safetensors.index.json")
		re := regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Base(prefix)) + `-\d{5}-of-\d{5}\.safetensors$`)
		ents, _ := os.ReadDir(filepath.Dir(out))
		for _, e := range ents {
			if re.MatchString(e.Name()) {
				paths = append(paths, filepath.Join(filepath.Dir(out), e.Name()))
			}
		}
	}
	for _, p := range paths {
		if err := atomicfile.Check(p, force); err != nil {
			return err
		}
	}
	return nil
}

// writeFixtures writes the committed fixtures into dir, which it creates,
// naming each file written; an existing fixture is replaced only when
// force.
func writeFixtures(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	for _, fx := range modelgen.Fixtures() {
		if err := atomicfile.Check(filepath.Join(dir, fx.File), force); err != nil {
			return err
		}
	}
	for _, fx := range modelgen.Fixtures() {
		p := filepath.Join(dir, fx.File)
		if err := modelgen.WriteTo(p, fx.Spec, force, nil); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		fmt.Fprintln(stdout, "wrote", filepath.Clean(p))
	}
	return nil
}
