// Package card writes the model card of a BITCOS file for publishing: a
// README.md (sizes, bits/weight per layout, zero densities, head type,
// decode reads, memory, sha256 of every file, how to run it) and the
// zero-density chart it shows. Its numbers are those of repack.Stats.
package card

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// The files a card is made of.
const (
	ReadmeFile = "README.md"
	ChartFile  = "zero-density.svg"
)

// Options say what card describes and where it goes.
type Options struct {
	Model  string // the BITCOS file (or first shard)
	Source string // the file it was repacked from, or ""
	Dir    string // where README.md and the chart go; default DefaultDir(Model)
	Force  bool   // replace an existing README.md or chart
	// Hub metadata overrides (frontmatter.go); empty: from general.*.
	License     string
	BaseModels  []string
	Tags        []string // added to gguf, bitcos, ternary and general.tags
	QuantizedBy string
}

// DefaultDir is where a card goes when no directory is given:
// ./<model stem>-card/ (beside the model would overwrite a README.md that
// is often already there).
func DefaultDir(model string) string {
	stem := strings.TrimSuffix(filepath.Base(model), ".gguf")
	return stem + "-card"
}

// Write writes the card and returns the paths written. It refuses a file
// without BITCOS tensors, and an existing README.md or chart in the
// directory unless Force. On failure nothing it created is left: neither the
// files nor a directory it made.
func Write(opt Options) ([]string, error) {
	if opt.Dir == "" {
		opt.Dir = DefaultDir(opt.Model)
	}
	paths := []string{filepath.Join(opt.Dir, ReadmeFile), filepath.Join(opt.Dir, ChartFile)}
	if err := checkOutputs(paths, opt); err != nil {
		return nil, err
	}
	st, err := repack.Stats(opt.Model, false, nil)
	if err != nil {
		return nil, err
	}
	if !hasBitcos(st) {
		return nil, fmt.Errorf("%s: no BITCOS tensor in this file: a card describes a repacked model (run gguf-bitcos repack first)", opt.Model)
	}
	readme, err := markdown(st, opt)
	if err != nil {
		return nil, err
	}
	made, err := mkdirAll(opt.Dir)
	if err != nil {
		return nil, err
	}
	cancel := atomicfile.OnInterrupt(func() { removeDirs(made) })
	defer cancel()
	if err := writeFiles(paths, []string{readme, zeroDensitySVG(st)}, opt.Force); err != nil {
		removeDirs(made)
		return nil, err
	}
	return paths, nil
}

func hasBitcos(st *stats.FileStats) bool {
	if !st.Bitcos {
		return false
	}
	for _, t := range st.Tensors {
		if t.Layout == repack.LayoutBitcos {
			return true
		}
	}
	return false
}

// checkOutputs checks, before any work, where the card's files go
// (atomicfile.Check): an existing README.md or chart is replaced only with
// Force, an input never; a folder still to be made must be possible to
// make: its nearest existing ancestor is a folder that takes files.
func checkOutputs(paths []string, opt Options) error {
	inputs, err := repack.ShardFiles(opt.Model)
	if err != nil {
		inputs = []string{opt.Model}
	}
	if opt.Source != "" {
		inputs = append(inputs, opt.Source)
	}
	if st, err := os.Stat(opt.Dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s: is not a folder; give the card a folder with -o", opt.Dir)
	} else if err == nil {
		for _, p := range paths {
			if err := atomicfile.Check(p, opt.Force, inputs...); err != nil {
				var ee *atomicfile.ExistsError
				if errors.As(err, &ee) {
					return fmt.Errorf("%s already exists: give --force to replace it, or another directory with -o", p)
				}
				return err
			}
		}
		return nil
	}
	up := filepath.Dir(filepath.Clean(opt.Dir))
	for {
		if _, err := os.Lstat(up); err == nil || up == filepath.Dir(up) {
			break
		}
		up = filepath.Dir(up)
	}
	if err := atomicfile.CheckFolder(up); err != nil {
		return fmt.Errorf("%s: cannot be made: %w", opt.Dir, err)
	}
	return nil
}

// writeFiles writes every file or none: they are committed together once
// all are written (atomicfile.CommitAll). An existing file is replaced only
// when replace.
func writeFiles(paths, contents []string, replace bool) error {
	var outs []*atomicfile.File
	defer func() {
		for _, o := range outs {
			o.Abort() // nothing once committed
		}
	}()
	for i, p := range paths {
		create := atomicfile.CreateNew
		if replace {
			create = atomicfile.Create
		}
		o, err := create(p, 0o644)
		if err != nil {
			return err
		}
		outs = append(outs, o)
		if _, err := io.WriteString(o, contents[i]); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return atomicfile.CommitAll(outs...)
}

// mkdirAll creates dir and missing parents, and returns those it created,
// deepest first.
func mkdirAll(dir string) ([]string, error) {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		removeDirs(made)
		return nil, err
	}
	return made, nil
}

// removeDirs removes directories card created, if they are still empty.
func removeDirs(made []string) {
	for _, d := range made {
		os.Remove(d)
	}
}

// SHA256File returns the hex sha256 and size of a file.
func SHA256File(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// markdown is the README of the card, with its hub front matter.
func markdown(st *stats.FileStats, opt Options) (string, error) {
	model, source := opt.Model, opt.Source
	f, err := ggufx.Open(model)
	if err != nil {
		return "", err
	}
	meta := metaOf(f, opt)
	arch, _ := kvString(f, "general.architecture")
	name, _ := kvString(f, "general.name")
	srcType, _ := kvString(f, bitcos.KeySourceType)
	headType := "-"
	for _, n := range []string{repack.OutputW, repack.TokenEmbd} {
		if i, ok := f.Tensor(n); ok {
			headType = fmt.Sprintf("%s (%s)", f.Tensors[i].Type, n)
			break
		}
	}
	mem := st.Memory
	f.Close()

	var b strings.Builder
	b.WriteString(frontMatter(meta))
	title := name
	if title == "" {
		title = filepath.Base(model)
	}
	fmt.Fprintf(&b, "# %s — BITCOS\n\n", title)
	fmt.Fprintf(&b, "Ternary weights stored as BITCOS (presence bitmap + compacted signs): **%.4f bits/weight** for the ternary layers at zero density z = %.4f, losslessly re-encoded from %s (the same ternary values and scale bits; `gguf-bitcos verify` proves it). Architecture `%s`; head %s.\n\n",
		st.Total.BitcosBPW, st.Total.Z, srcType, arch, headType)
	b.WriteString("## Sizes\n\n| | bytes |\n|---|---|\n")
	if source != "" {
		if fi, err := os.Stat(source); err == nil {
			fmt.Fprintf(&b, "| source `%s` | %d (%s) |\n", filepath.Base(source), fi.Size(), units.Bytes(fi.Size()))
		}
	}
	fmt.Fprintf(&b, "| this model | %d (%s) |\n\n", st.FileBytes, units.Bytes(st.FileBytes))
	b.WriteString("## Bits per weight of the ternary layers\n\n")
	fmt.Fprintf(&b, "| layout | bits/weight | bytes |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| information floor h(z)+(1−z) | %.4f | |\n", st.Total.EntropyBPW)
	fmt.Fprintf(&b, "| 2-bit (TQ2_0 / I2_S / Q2_0, with these scales) | %.4f | %d |\n", st.Total.TwoBitBPW, st.Total.TwoBitBytes)
	if st.Total.TQ1Bytes > 0 {
		fmt.Fprintf(&b, "| TQ1_0 | %.4f | %d |\n", st.Total.TQ1BPW, st.Total.TQ1Bytes)
	}
	fmt.Fprintf(&b, "| five trits per byte, 128-blocks (symbols only) | %.4f | %d |\n", st.Total.FiveTritBPW, st.Total.FiveTritBytes)
	fmt.Fprintf(&b, "| **BITCOS** (bitmap, signs, row index, scales) | **%.4f** | %d |\n\n", st.Total.BitcosBPW, st.Total.BitcosBytes)
	b.WriteString("## Zero density per tensor\n\n![zero density per ternary tensor](zero-density.svg)\n\n")
	zmin, zmax := 1.0, 0.0
	for _, t := range st.Tensors {
		zmin, zmax = min(zmin, t.Z), max(zmax, t.Z)
	}
	fmt.Fprintf(&b, "%s, z from %.4f to %.4f (mean %.4f). BITCOS beats five-trits-per-byte (1.625) where z > 0.375.\n\n", units.Count(len(st.Tensors), "ternary tensor"), zmin, zmax, st.Total.Z)
	dead := 0
	for _, d := range st.Dead {
		dead += d.Count
	}
	if len(st.Dead) > 0 {
		fmt.Fprintf(&b, "Dead FFN neurons (gate and up rows both all zero): %d.\n\n", dead)
	}
	r := st.DecodeRead.After
	b.WriteString("## Memory\n\n")
	fmt.Fprintf(&b, "One decode step reads %s of weights: head %s, ternary layers %s, rest %s.\n", units.Bytes(r.Total), units.Bytes(r.Head), units.Bytes(r.Ternary), units.Bytes(r.Rest))
	fmt.Fprintf(&b, "Running it takes about %s: weights %s + f16 KV cache %s at a %d-token context (estimate: weights as stored, K and V f16 for every layer; compute buffers not included).\n\n",
		units.Bytes(mem.Total), units.Bytes(mem.Weights), units.Bytes(mem.KVCache), mem.Context)
	b.WriteString("## Files\n\n| file | bytes | sha256 |\n|---|---|---|\n")
	files, err := repack.ShardFiles(model)
	if err != nil {
		return "", err
	}
	for _, p := range files {
		sum, n, err := SHA256File(p)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "| `%s` | %d | `%s` |\n", filepath.Base(p), n, sum)
	}
	fmt.Fprintf(&b, "\n## Run\n\nBITCOS is a new ggml type: it needs llama.cpp with the gguf-bitcos patch series (`patches/` in the gguf-bitcos repository, applied with `git am` to the commit named there). Then, as usual:\n\n```sh\nllama-completion -m %s -p \"Hello\" -n 64\n```\n\n", filepath.Base(files[0]))
	orig := "ORIGINAL.gguf"
	if source != "" {
		orig = filepath.Base(source)
	}
	b.WriteString("Check it against the source before uploading:\n\n```sh\ngguf-bitcos verify " + orig + " " + filepath.Base(files[0]) + "\n```\n\n")
	b.WriteString("To get the source layout back: `gguf-bitcos unpack " + filepath.Base(files[0]) + "`.\n")
	return b.String(), nil
}

func kvString(f *ggufx.File, key string) (string, bool) {
	kv, ok := f.KV(key)
	if !ok {
		return "", false
	}
	return kv.AsString()
}
