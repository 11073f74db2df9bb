package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

func cardCmd() *cobra.Command {
	var source, dir string
	cmd := &cobra.Command{
		Use:   "card REPACKED.gguf [--source ORIGINAL.gguf] [-o DIR]",
		Short: "Write a model-card README and a zero-density chart for a repacked model",
		Long: `card writes DIR/README.md (default: the model's directory) describing a repacked
file or shard set for publishing: source and result sizes, bits/weight per layout,
the zero-density chart (DIR/zero-density.svg), the head type, what one decode step
reads, a memory estimate, the sha256 of every file, and how to run it with the
patched llama.cpp. Its numbers are those of 'stats --json'.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				dir = filepath.Dir(args[0])
			}
			return writeCard(args[0], source, dir)
		},
	}
	cmd.Flags().StringVar(&source, "source", "", "the file it was repacked from (for the before/after sizes)")
	cmd.Flags().StringVarP(&dir, "output-dir", "o", "", "where README.md and zero-density.svg go")
	return cmd
}

// shardFiles lists the files of a model: the shard set when path is a first
// shard, else path alone.
func shardFiles(path string) []string {
	f, err := ggufx.Open(path)
	if err != nil {
		return []string{path}
	}
	defer f.Close()
	kv, ok := f.KV(repack.KeySplitCount)
	n, _ := kv.AsUint64()
	if !ok || n <= 1 || !strings.HasSuffix(path, fmt.Sprintf("-00001-of-%05d.gguf", n)) {
		return []string{path}
	}
	prefix := strings.TrimSuffix(path, fmt.Sprintf("-00001-of-%05d.gguf", n))
	var out []string
	for s := 0; s < int(n); s++ {
		out = append(out, repack.ShardPath(prefix, s, int(n)))
	}
	return out
}

func sha256File(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

func writeCard(model, source, dir string) error {
	st, err := repack.Stats(model, false, nil)
	if err != nil {
		return err
	}
	f, err := ggufx.Open(model)
	if err != nil {
		return err
	}
	arch, _ := kvString(f, "general.architecture")
	name, _ := kvString(f, "general.name")
	srcType, _ := kvString(f, repack.KeySourceType)
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
			fmt.Fprintf(&b, "| source `%s` | %d (%s) |\n", filepath.Base(source), fi.Size(), human(fi.Size()))
		}
	}
	fmt.Fprintf(&b, "| this model | %d (%s) |\n\n", st.FileBytes, human(st.FileBytes))
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
	fmt.Fprintf(&b, "%d ternary tensors, z from %.4f to %.4f (mean %.4f). BITCOS beats five-trits-per-byte (1.625) where z > 0.375.\n\n", len(st.Tensors), zmin, zmax, st.Total.Z)
	dead := 0
	for _, d := range st.Dead {
		dead += d.Count
	}
	if len(st.Dead) > 0 {
		fmt.Fprintf(&b, "Dead FFN neurons (gate and up rows both all zero): %d.\n\n", dead)
	}
	r := st.DecodeRead.After
	b.WriteString("## Memory\n\n")
	fmt.Fprintf(&b, "One decode step reads %s of weights: head %s, ternary layers %s, rest %s.\n", human(r.Total), human(r.Head), human(r.Ternary), human(r.Rest))
	fmt.Fprintf(&b, "Running it takes about %s: weights %s + f16 KV cache %s at a %d-token context (estimate: weights as stored, K and V f16 for every layer; compute buffers not included).\n\n",
		human(mem.Total), human(mem.Weights), human(mem.KVCache), mem.Context)
	b.WriteString("## Files\n\n| file | bytes | sha256 |\n|---|---|---|\n")
	files := shardFiles(model)
	for _, p := range files {
		sum, n, err := sha256File(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "| `%s` | %d | `%s` |\n", filepath.Base(p), n, sum)
	}
	fmt.Fprintf(&b, "\n## Run\n\nBITCOS is a new ggml type: it needs llama.cpp with the gguf-bitcos patch series (`patches/` in the gguf-bitcos repository, applied with `git am` to the commit named there). Then, as usual:\n\n```sh\nllama-completion -m %s -p \"Hello\" -n 64\n```\n\n", filepath.Base(files[0]))
	b.WriteString("Check it against the source before uploading:\n\n```sh\ngguf-bitcos verify ORIGINAL.gguf " + filepath.Base(files[0]) + "\n```\n\n")
	b.WriteString("To get the source layout back: `gguf-bitcos unpack " + filepath.Base(files[0]) + "`.\n")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "zero-density.svg"), []byte(zeroDensitySVG(st))); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "README.md"), []byte(b.String())); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(dir, "README.md"), filepath.Join(dir, "zero-density.svg"))
	return nil
}

func kvString(f *ggufx.File, key string) (string, bool) {
	kv, ok := f.KV(key)
	if !ok {
		return "", false
	}
	return kv.AsString()
}

// zeroDensitySVG draws every ternary tensor's zero density as a bar, in file
// order, with the 0.375 line where BITCOS starts beating five-trits-per-byte
// (after the paper's Fig. 1).
func zeroDensitySVG(st *repack.FileStats) string {
	ts := append([]repack.TensorStats(nil), st.Tensors...)
	const W, H, left, bottom, top = 900, 360, 60, 40, 30
	n := len(ts)
	if n == 0 {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`
	}
	plotW, plotH := float64(W-left-20), float64(H-bottom-top)
	y := func(z float64) float64 { return float64(top) + plotH*(1-z/0.6) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Zero density per ternary tensor (%d tensors, mean z = %.4f)</text>`+"\n", left, n, st.Total.Z)
	for _, z := range []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, W-20, y(z), y(z))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-6, y(z)+4, z)
	}
	bw := plotW / float64(n)
	colors := map[string]string{"attn": "#4878cf", "ffn": "#d65f5f"}
	for i, t := range ts {
		c := "#6acc65"
		for k, v := range colors {
			if strings.Contains(t.Name, k) {
				c = v
			}
		}
		x := float64(left) + float64(i)*bw
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%s z=%.4f</title></rect>`+"\n",
			x+bw*0.1, y(t.Z), bw*0.8, y(0)-y(t.Z), c, t.Name, t.Z)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="6,4"/>`, left, W-20, y(0.375), y(0.375))
	fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="210" height="18" fill="white" fill-opacity="0.85"/>`, W-234, y(0.375)-19)
	fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">z = 0.375: BITCOS = 1.625 bits</text>`+"\n", W-28, y(0.375)-5)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">ternary tensors in file order (blue: attention, red: FFN)</text>`+"\n", left+int(plotW/2), H-12)
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">zero density z</text>`+"\n", top+int(plotH/2), top+int(plotH/2))
	b.WriteString("</svg>\n")
	return b.String()
}

// writeFileAtomic writes data to a temporary file beside path and renames it
// into place, so a reader never sees half a card.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
