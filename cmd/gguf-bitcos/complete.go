package main

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// completeValues makes the shell complete flag name of cmd from values.
func completeValues(cmd *cobra.Command, name string, values ...string) {
	cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// headChoices are repack's --head values: the head types and keep.
func headChoices() []string {
	var hs []string
	for name := range format.HeadTypes {
		hs = append(hs, name)
	}
	slices.Sort(hs)
	return append(hs, repack.HeadKeep)
}
