package main

import (
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

func repackCmd() *cobra.Command {
	var (
		out     string
		asJSON  bool
		workers int
		quiet   bool
		tern    bool

		head, tokEmbType, outType string
		splitSize                 string
		splitTensors              int
	)
	cmd := &cobra.Command{
		Use:   "repack MODEL.gguf",
		Short: "Rewrite ternary tensors as BITCOS where that is smaller (lossless)",
		Long: `repack rewrites every TQ2_0, TQ1_0, Q2_0 or I2_S tensor whose row length is a
multiple of 128 as BITCOS when that takes fewer bytes (overheads counted), and
copies everything else byte for byte. The output (default MODEL.bitcos.gguf)
is written to a temporary file beside it, read back and checked, then renamed.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			heads, err := repack.HeadPlan(head, tokEmbType, outType)
			if err != nil {
				return usageError{cmd, err}
			}
			opt := repack.Options{Output: out, Workers: workers, Ternarize: tern, Heads: heads}
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
				var bar *progressbar.ProgressBar
				opt.Progress = func(done, total int64) {
					if bar == nil {
						bar = progressbar.DefaultBytes(total, "repack")
					}
					bar.Set64(done)
				}
			}
			start := time.Now()
			rep, err := repack.Repack(args[0], opt)
			if err != nil {
				return err
			}
			if asJSON {
				for _, w := range rep.Warnings {
					fmt.Fprintf(cmd.ErrOrStderr(), "gguf-bitcos: warning: %s\n", w)
				}
				return writeJSON(stdout, rep)
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
			fmt.Fprintf(stdout, "  %d tensors to BITCOS, %d ternary tensors kept\n", rep.Converted, rep.Kept)
			fmt.Fprintf(stdout, "  %s -> %s (%.2f%%) in %.1fs\n", human(rep.InputBytes), human(rep.OutputBytes),
				100*float64(rep.OutputBytes)/float64(rep.InputBytes), time.Since(start).Seconds())
			if rep.Canonical != "" {
				fmt.Fprintf(stdout, "  note: unpack will not be byte-identical: %s\n", rep.Canonical)
			}
			for _, w := range rep.Warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "gguf-bitcos: warning: %s\n", w)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output path (default: MODEL.bitcos.gguf)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON summary")
	cmd.Flags().IntVar(&workers, "workers", 0, "tensors encoded in parallel (default: GOMAXPROCS)")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	cmd.Flags().StringVar(&splitSize, "split-max-size", "", "write shards of at most this much tensor data (e.g. 500M, 2G), named and keyed as llama-gguf-split does")
	cmd.Flags().IntVar(&splitTensors, "split-max-tensors", 0, "write shards of at most this many tensors")
	cmd.Flags().StringVar(&head, "head", "", "quantize the embedding/output head: q8_0, q6_K, q4_K or keep (lossy; bytes as llama-quantize writes them)")
	cmd.Flags().StringVar(&tokEmbType, "token-embedding-type", "", "type for token_embd.weight (overrides --head)")
	cmd.Flags().StringVar(&outType, "output-tensor-type", "", "type for output.weight (overrides --head)")
	cmd.Flags().BoolVar(&tern, "ternarize", false, "F16/BF16/F32 master: ternarize the projections (absmean, lossy) and store them as BITCOS or TQ2_0")
	return cmd
}

func unpackCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "unpack MODEL.bitcos.gguf",
		Short: "Rewrite a BITCOS file back into its source types",
		Long: `unpack writes every BITCOS tensor back in the type it was repacked from and
drops the bitcos.* metadata. For a source written by llama.cpp, gguf-py or
BitNet the result is the original file byte for byte.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = repack.DefaultUnpackOutput(args[0])
			}
			if err := repack.Unpack(args[0], out); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s -> %s\n", args[0], out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output path (default: MODEL.unpacked.gguf)")
	return cmd
}

func verifyCmd() *cobra.Command {
	var asJSON bool
	var opt repack.VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify ORIGINAL.gguf REPACKED.gguf",
		Short: "Prove a repack lossless and that unpack restores the original",
		Long: `verify checks the repack's bitcos.* metadata, then compares the two files:
every KV (bitcos.* aside) and tensor in order, ternary tensors as decoded codes
and scale bits, every BITCOS tensor's recorded source type against the
original's type, bitcos.zero_density against the data. Then (unless --fast) the
round trip: what unpack would write is streamed into a comparison with the
original, byte for byte, without writing a file. Exit status 2 and the first
differences listed when anything differs.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			v, err := repack.Verify(args[0], args[1], opt)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(stdout, v); err != nil {
					return err
				}
			} else {
				for _, d := range v.Diffs {
					fmt.Fprintln(stdout, "DIFF", d)
				}
				if v.MoreDiffs > 0 {
					fmt.Fprintf(stdout, "... and %d more differences\n", v.MoreDiffs)
				}
			}
			if !v.OK() {
				return exitErr{code: exitDiffer, msg: fmt.Sprintf("%s and %s differ", args[0], args[1])}
			}
			if !asJSON {
				fmt.Fprintf(stdout, "OK: %d tensors (%d ternary, compared as codes and scale bits) and %d KVs identical\n",
					v.TensorsChecked, v.TernaryChecked, v.KVsChecked)
				if v.HeadsChecked > 0 {
					fmt.Fprintf(stdout, "    %d quantized head tensor(s) equal the reference quantization of the original\n", v.HeadsChecked)
				}
				switch v.RoundTrip {
				case repack.RoundTripIdentical:
					fmt.Fprintln(stdout, "    round trip: unpack gives the original back byte for byte")
				case repack.RoundTripCanonical:
					fmt.Fprintln(stdout, "    round trip: unpack gives back every KV and tensor byte of the original, in the canonical layout (the original's own layout is not canonical)")
				default:
					fmt.Fprintln(stdout, "    round trip", v.RoundTrip)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&opt.Fast, "fast", false, "skip the round trip (the streamed unpack compared with the original)")
	return cmd
}
