package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// repackFlags holds repack's flag values until they become repack.Options.
type repackFlags struct {
	out     string
	asJSON  bool
	workers int
	quiet   bool
	tern    bool
	force   bool

	head, tokEmbType, outType string
	splitSize                 string
	splitTensors              int
}

func repackCmd() *cobra.Command {
	var f repackFlags
	cmd := &cobra.Command{
		Use:   "repack MODEL.gguf [OUT.gguf]",
		Short: "Rewrite ternary tensors as BITCOS where that is smaller (lossless)",
		Long: `repack rewrites every TQ2_0, TQ1_0, Q2_0 or I2_S tensor whose row length is a
multiple of 128 as BITCOS when that takes fewer bytes (overheads counted), and
copies everything else byte for byte. When no tensor gains, it writes nothing
and says so (--force writes the file anyway). The output (OUT, or -o; by
default MODEL-BITCOS.gguf, the source type's label in the name replaced by
BITCOS) is written unnamed beside it (nothing is left if it stops), read back
and checked, and only then gets its name. An existing file there is not
replaced without --force (the input never is), checked before any work. Its
general.file_type says BITCOS (96); the source's is kept in
bitcos.source_file_type for unpack.`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt, err := f.options(cmd, args)
			if err != nil {
				return err
			}
			if !f.quiet && !f.asJSON && term.IsTerminal(int(os.Stderr.Fd())) {
				var stop func()
				opt.Progress, stop = phaseBars()
				defer stop()
			}
			start := time.Now()
			rep, err := repack.Repack(args[0], opt)
			if err != nil {
				return err
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "gguf-bitcos: warning: %s\n", w)
			}
			if f.asJSON {
				return writeJSON(stdout, rep)
			}
			printRepack(rep, time.Since(start))
			return nil
		},
	}
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "output path (default: MODEL-BITCOS.gguf, the source type's label in the name replaced)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print a JSON summary")
	cmd.Flags().IntVar(&f.workers, "workers", 0, "tensors encoded in parallel (default: GOMAXPROCS)")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().StringVar(&f.splitSize, "split-max-size", "", "write shards of at most this much tensor data (e.g. 500M, 2G), named and keyed as llama-gguf-split does")
	cmd.Flags().IntVar(&f.splitTensors, "split-max-tensors", 0, "write shards of at most this many tensors")
	cmd.Flags().StringVar(&f.head, "head", "", "quantize the embedding/output head: q8_0, q6_K, q4_K or keep (lossy; bytes as llama-quantize writes them)")
	cmd.Flags().StringVar(&f.tokEmbType, "token-embedding-type", "", "type for token_embd.weight (overrides --head)")
	cmd.Flags().StringVar(&f.outType, "output-tensor-type", "", "type for output.weight (overrides --head)")
	cmd.Flags().BoolVar(&f.force, "force", false, "replace an existing output file (never the input), and write the output even when no tensor gains (it would be the input plus bitcos.* keys)")
	cmd.Flags().BoolVar(&f.tern, "ternarize", false, "F16/BF16/F32 master: ternarize the projections (absmean, lossy) and store them as BITCOS or TQ2_0")
	for _, name := range []string{"head", "token-embedding-type", "output-tensor-type"} {
		completeValues(cmd, name, headChoices()...)
	}
	return cmd
}

// options checks the flags and the positional output and turns them into
// repack.Options (Progress aside); every refusal is a usage error.
func (f *repackFlags) options(cmd *cobra.Command, args []string) (repack.Options, error) {
	if f.workers < 0 {
		return repack.Options{}, usagef(cmd, "--workers %d: want a positive count (0: one per CPU)", f.workers)
	}
	heads, err := repack.HeadPlan(f.head, f.tokEmbType, f.outType)
	if err != nil {
		return repack.Options{}, usageError{cmd, err}
	}
	opt := repack.Options{Output: f.out, Workers: f.workers, Ternarize: f.tern, Heads: heads, Force: f.force, Replace: f.force}
	if len(args) == 2 {
		if f.out != "" {
			return repack.Options{}, usagef(cmd, "give the output as OUT or with -o, not both")
		}
		opt.Output = args[1]
	}
	switch {
	case f.splitSize != "" && f.splitTensors > 0:
		return repack.Options{}, usagef(cmd, "give --split-max-size or --split-max-tensors, not both")
	case f.splitSize != "":
		if opt.Split.MaxBytes, err = repack.ParseSplitSize(f.splitSize); err != nil {
			return repack.Options{}, usageError{cmd, err}
		}
	case f.splitTensors > 0:
		opt.Split.MaxTensors = f.splitTensors
	}
	return opt, nil
}

// printRepack prints a repack's report for a person: the tensors left in
// another layout with their reason, what was written, and what it saved in
// how long (took).
func printRepack(rep *repack.Report, took time.Duration) {
	if rep.NotWritten != "" {
		fmt.Fprintf(stdout, "%s: %s\n", rep.Input, rep.NotWritten)
		return
	}
	for _, d := range rep.Tensors {
		if d.Layout != repack.LayoutBitcos && d.Layout != repack.LayoutCopied && d.Reason != "" {
			fmt.Fprintf(stdout, "%-6s %-40s %-6s %s\n", d.Layout, d.Name, d.Type, d.Reason)
		}
	}
	fmt.Fprintf(stdout, "%s -> %s\n", rep.Input, rep.Output)
	if len(rep.Shards) > 1 {
		fmt.Fprintf(stdout, "  %d shards: %s ... %s\n", len(rep.Shards), rep.Shards[0], rep.Shards[len(rep.Shards)-1])
	}
	fmt.Fprintf(stdout, "  %s to BITCOS, %s kept\n", units.Count(rep.Converted, "tensor"), units.Count(rep.Kept, "ternary tensor"))
	fmt.Fprintf(stdout, "  %s -> %s (%.2f%%) in %.1fs\n", units.Bytes(rep.InputBytes), units.Bytes(rep.OutputBytes),
		100*float64(rep.OutputBytes)/float64(rep.InputBytes), took.Seconds())
	if rep.Canonical != "" {
		fmt.Fprintf(stdout, "  note: unpack will not be byte-identical: %s\n", rep.Canonical)
	}
}
