package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/card"
)

func cardCmd() *cobra.Command {
	var opt card.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "card REPACKED.gguf [--source ORIGINAL.gguf] [-o DIR] [--force]",
		Short: "Write a model-card README and a zero-density chart for a repacked model",
		Long: `card writes DIR/README.md (default DIR: ./<model name>-card/) describing a
repacked file or shard set for publishing: source and result sizes, bits/weight
per layout, the zero-density chart (DIR/zero-density.svg), the head type, what
one decode step reads, a memory estimate, the sha256 of every file, and how to
run it with the patched llama.cpp. Its numbers are those of 'stats --json'. It
does not replace an existing README.md or chart without --force, and leaves
nothing behind when it fails.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opt.Model = args[0]
			paths, err := card.Write(opt)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, map[string]string{"readme": paths[0], "chart": paths[1]})
			}
			fmt.Fprintf(stdout, "wrote %s and %s\n", paths[0], paths[1])
			return nil
		},
	}
	cmd.Flags().StringVar(&opt.Source, "source", "", "the file it was repacked from (for the before/after sizes)")
	cmd.Flags().StringVarP(&opt.Dir, "output-dir", "o", "", "where README.md and zero-density.svg go (default ./<model>-card/)")
	cmd.Flags().BoolVar(&opt.Force, "force", false, "replace an existing README.md and chart")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the paths written as JSON")
	cmd.Flags().StringVar(&opt.License, "license", "", "license in the hub front matter (default: general.license)")
	cmd.Flags().StringArrayVar(&opt.BaseModels, "base-model", nil, "hub id of the base model, org/name (default: from general.base_model.N.*); repeatable")
	cmd.Flags().StringArrayVar(&opt.Tags, "tag", nil, "another hub tag (gguf, bitcos, ternary and general.tags are always there); repeatable")
	cmd.Flags().StringVar(&opt.QuantizedBy, "quantized-by", "", "quantized_by in the hub front matter (default: gguf-bitcos)")
	return cmd
}
