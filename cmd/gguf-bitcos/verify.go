package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

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
original, byte for byte, without writing a file. Exit status 0 only when
REPACKED is a BITCOS repack that holds what ORIGINAL holds (and unpacks to it,
unless --fast); 2 and the first differences listed when anything differs; 4
when REPACKED is not a BITCOS repack (no bitcos.* metadata), when the
arguments are the wrong way round, or when ORIGINAL is a BITCOS file too.`,
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
			switch v.Verdict {
			case repack.VerdictOK:
			case repack.VerdictDiffer:
				return exitErr{code: exitDiffer, msg: v.Reason}
			default:
				return exitErr{code: exitNotRepack, msg: v.Reason}
			}
			if !asJSON {
				codes := v.TensorsChecked - v.BytesChecked - v.HeadsChecked
				fmt.Fprintf(stdout, "OK: %s and %s identical: %s as ternary codes and scale bits (%d BITCOS), %d byte for byte (%d of them ternary)\n",
					units.Count(v.TensorsChecked, "tensor"), units.Count(v.KVsChecked, "KV"), units.Count(codes, "tensor"), v.BitcosChecked,
					v.BytesChecked, v.TernaryChecked-codes)
				if v.HeadsChecked > 0 {
					fmt.Fprintf(stdout, "    quantized heads: %d, each equal to the reference quantization of the original\n", v.HeadsChecked)
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
