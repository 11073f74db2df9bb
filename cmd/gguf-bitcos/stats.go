package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

func statsCmd() *cobra.Command {
	var asJSON, ternarize bool
	var head, tokEmbType, outType string
	var sample int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "stats MODEL.gguf|URL|MODEL.safetensors|model.safetensors.index.json",
		Short: "Zero density, entropy floor and bits/weight of every ternary tensor under each layout",
		Long: `stats reports, per tensor and in total, the zero density z, the entropy floor
h(z)+(1-z), bits/weight and bytes under 2-bit, TQ1_0, five-trit@128, BITCOS
(overheads counted) and 2-z; the layout repack would choose and why; dead FFN
neurons; the exact size of the repack; what one decode step reads before and
after; a memory estimate. MODEL is a GGUF file (or the first shard of a set), a
URL of one (read with HTTP range requests, float tensors never fetched), or a
Hugging Face safetensors master (its projections ternarized as repack
--ternarize would). --sample N reads N random blocks per tensor instead of all
of it and gives z with its 95% interval. It writes nothing.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			heads, err := repack.HeadPlan(head, tokEmbType, outType)
			if err != nil {
				return err
			}
			fs, err := repack.StatsWith(args[0], repack.StatsOptions{Ternarize: ternarize, Heads: heads, Sample: sample, Seed: seed})
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, fs)
			}
			m := fs.Model
			fmt.Fprintf(stdout, "model: %s %q, file type %s, %.2fM parameters, %.3f bits/weight\n",
				m.Architecture, m.Name, repack.FileTypeText(m.FileType), float64(m.Parameters)/1e6, m.BitsPerWeight)
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "tensor\ttype\tz\tfloor\t2-bit\tTQ1_0\t5t@128\tBITCOS\t2-z\tBITCOS data\tlayout\t")
			row := func(t stats.TensorStats) {
				tq1 := "-"
				if t.TQ1BPW > 0 {
					tq1 = fmt.Sprintf("%.4f", t.TQ1BPW)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%.4f\t%.4f\t%s\t%.4f\t%.4f\t%.4f\t%d\t%s\t\n",
					t.Name, t.Type, zText(t), t.EntropyBPW, t.TwoBitBPW, tq1, t.FiveTritBPW, t.BitcosBPW, t.BitcosRawBPW, t.BitcosBytes, t.Layout)
			}
			for _, t := range fs.Tensors {
				row(t)
			}
			row(fs.Total)
			tw.Flush()
			fmt.Fprintln(stdout, "bits/weight: floor = h(z)+(1-z), symbols only; 2-bit = 2 + the tensor's scales; TQ1_0 = 1.625 + its fp16 per 256;")
			fmt.Fprintln(stdout, "  5t@128 = 1.625, symbols only; BITCOS = bitmap + signs + 8-byte tail + row index + scales; 2-z = BITCOS symbols only;")
			fmt.Fprintln(stdout, "  BITCOS data = those bytes (the lines below count the file's: alignment padding and header entries too)")
			for _, t := range fs.Tensors {
				if t.Reason != "" {
					fmt.Fprintf(stdout, "%s: %s\n", t.Name, t.Reason)
				}
				if t.KernelNote != "" {
					fmt.Fprintf(stdout, "%s: %s\n", t.Name, t.KernelNote)
				}
			}
			for _, k := range fs.Kept {
				fmt.Fprintf(stdout, "%s (%s) is kept: %s\n", k.Name, k.Type, k.Reason)
			}
			dead := 0
			for _, d := range fs.Dead {
				dead += d.Count
			}
			if len(fs.Dead) > 0 {
				fmt.Fprintf(stdout, "dead FFN neurons (gate and up rows all zero): %d in %s\n", dead, units.Count(len(fs.Dead), "layer"))
				for _, d := range fs.Dead {
					if d.Count > 0 {
						fmt.Fprintf(stdout, "  layer %d: %d of %d\n", d.Layer, d.Count, d.FFN)
					}
				}
			}
			printSource(fs)
			fmt.Fprintf(stdout, "file: %s; as repacked: %s\n", units.Bytes(fs.FileBytes), units.Bytes(fs.RepackBytes))
			fmt.Fprintf(stdout, "running it: about %s (weights %s + f16 KV cache %s at %d tokens; compute buffers not counted)\n",
				units.Bytes(fs.Memory.Total), units.Bytes(fs.Memory.Weights), units.Bytes(fs.Memory.KVCache), fs.Memory.Context)
			b, a := fs.DecodeRead.Before, fs.DecodeRead.After
			fmt.Fprintf(stdout, "one decode step reads:  head %s -> %s, ternary layers %s -> %s, rest %s -> %s; total %s -> %s (%s)\n",
				units.Bytes(b.Head), units.Bytes(a.Head), units.Bytes(b.Ternary), units.Bytes(a.Ternary), units.Bytes(b.Rest), units.Bytes(a.Rest),
				units.Bytes(b.Total), units.Bytes(a.Total), units.Change(b.Total, a.Total))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&head, "head", "", "report the repack with the head quantized: q8_0, q6_K, q4_K or keep")
	cmd.Flags().StringVar(&tokEmbType, "token-embedding-type", "", "type for token_embd.weight (overrides --head)")
	cmd.Flags().StringVar(&outType, "output-tensor-type", "", "type for output.weight (overrides --head)")
	cmd.Flags().IntVar(&sample, "sample", 0, "read N random blocks per tensor instead of every byte, and print z's 95% interval")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of --sample's block choice")
	cmd.Flags().BoolVar(&ternarize, "ternarize", false, "report a float master's projections as repack --ternarize would write them")
	return cmd
}
