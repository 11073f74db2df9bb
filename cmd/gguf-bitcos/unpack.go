package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

func unpackCmd() *cobra.Command {
	var out string
	var force bool
	cmd := &cobra.Command{
		Use:   "unpack MODEL-BITCOS.gguf [OUT.gguf]",
		Short: "Rewrite a BITCOS file back into its source types",
		Long: `unpack writes every BITCOS tensor back in the type it was repacked from and
drops the bitcos.* metadata. For a source written by llama.cpp, gguf-py or
BitNet the result is the original file byte for byte. It does not replace an
existing file without --force (and never its input), checked before any work.`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				if out != "" {
					return usagef(cmd, "give the output as OUT or with -o, not both")
				}
				out = args[1]
			}
			if out == "" {
				out = repack.DefaultUnpackOutput(args[0])
			}
			if err := repack.Unpack(args[0], out, force); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s -> %s\n", args[0], out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "output path (default: MODEL.unpacked.gguf)")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing output file (never the input)")
	return cmd
}
