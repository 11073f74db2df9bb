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

func repackCmd() *cobra.Command {
	var (
		out     string
		asJSON  bool
		workers int
		quiet   bool
		tern    bool
		force   bool

		head, tokEmbType, outType string
		splitSize                 string
		splitTensors              int
	)
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
			if workers < 0 {
				return usagef(cmd, "--workers %d: want a positive count (0: one per CPU)", workers)
			}
			heads, err := repack.HeadPlan(head, tokEmbType, outType)
			if err != nil {
				return usageError{cmd, err}
			}
			opt := repack.Options{Output: out, Workers: workers, Ternarize: tern, Heads: heads, Force: force, Replace: force}
			if len(args) == 2 {
				if out != "" {
					return usagef(cmd, "give the output as OUT or with -o, not both")
				}
				opt.Output = args[1]
			}
			switch {
			case splitSize != "" && splitTensors > 0:
				return usagef(cmd, "give --split-max-size or --split-max-tensors, not both")
			case splitSize != "":
				if opt.Split.MaxBytes, err = repack.ParseSplitSize(splitSize); err != nil {
					return usageError{cmd, err}
				}
			case splitTensors > 0:
				opt.Split.MaxTensors = splitTensors
			}
			if !quiet && !asJSON && term.IsTerminal(int(os.Stderr.Fd())) {
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
			if asJSON {
				return writeJSON(stdout, rep)
			}
			if rep.NotWritten != "" {
				fmt.Fprintf(stdout, "%s: %s\n", rep.Input, rep.NotWritten)
				return nil
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
				100*float64(rep.OutputBytes)/float64(rep.InputBytes), time.Since(start).Seconds())
			if rep.Canonical != "" {
				fmt.Fprintf(stdout, "  note: unpack will not be byte-identical: %s\n", rep.Canonical)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output path (default: MODEL-BITCOS.gguf, the source type's label in the name replaced)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary")
	cmd.Flags().IntVar(&workers, "workers", 0, "tensors encoded in parallel (default: GOMAXPROCS)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().StringVar(&splitSize, "split-max-size", "", "write shards of at most this much tensor data (e.g. 500M, 2G), named and keyed as llama-gguf-split does")
	cmd.Flags().IntVar(&splitTensors, "split-max-tensors", 0, "write shards of at most this many tensors")
	cmd.Flags().StringVar(&head, "head", "", "quantize the embedding/output head: q8_0, q6_K, q4_K or keep (lossy; bytes as llama-quantize writes them)")
	cmd.Flags().StringVar(&tokEmbType, "token-embedding-type", "", "type for token_embd.weight (overrides --head)")
	cmd.Flags().StringVar(&outType, "output-tensor-type", "", "type for output.weight (overrides --head)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing output file (never the input), and write the output even when no tensor gains (it would be the input plus bitcos.* keys)")
	cmd.Flags().BoolVar(&tern, "ternarize", false, "F16/BF16/F32 master: ternarize the projections (absmean, lossy) and store them as BITCOS or TQ2_0")
	for _, name := range []string{"head", "token-embedding-type", "output-tensor-type"} {
		completeValues(cmd, name, headChoices()...)
	}
	return cmd
}
