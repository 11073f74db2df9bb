package main

import (
	"fmt"

	"github.com/spf13/cobra"

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
