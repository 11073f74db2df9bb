package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/ppl"
)

func pplCmd() *cobra.Command {
	var (
		opt           ppl.Options
		maxKLD        float64
		allowPPLDelta bool
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "ppl --llama-perplexity PATH BASE.gguf CANDIDATE.gguf -f TEXT [-- LLAMA-PERPLEXITY ARGS]",
		Short: "Prove perplexity parity of a repack with llama-perplexity (KL-divergence mode)",
		Long: `ppl runs llama-perplexity on BASE (saving its logits) and on CANDIDATE in
KL-divergence mode against them, and reports both perplexities, the mean and
maximum KL divergence and how often the top token agrees. It exits with status
3 when parity fails: the perplexities differ in any printed digit (unless
--allow-ppl-delta) or the mean KLD is not below --max-kld. CANDIDATE needs a
llama.cpp built with patches/ when it holds BITCOS tensors. Arguments after
-- go to both llama-perplexity runs (for example -- -ngl 99).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if n := cmd.ArgsLenAtDash(); (n >= 0 && n != 2) || (n < 0 && len(args) != 2) {
				return usagef(cmd, "want BASE.gguf and CANDIDATE.gguf")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if opt.Bin == "" || opt.Text == "" {
				return usagef(cmd, "--llama-perplexity and -f are required")
			}
			opt.Base, opt.Candidate, opt.Extra = args[0], args[1], args[2:]
			r, err := ppl.Run(opt)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(stdout, r); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(stdout, "PPL base      %s\nPPL candidate %s\nmean KLD      %.6f (max %.6f)\nsame top p    %.3f %%\n",
					r.PPLBaseText, r.PPLCandText, r.MeanKLD, r.MaxKLD, r.SameTopP)
			}
			if err := r.Parity(maxKLD, allowPPLDelta); err != nil {
				return exitErr{exitParity, err.Error()}
			}
			fmt.Fprintln(stdout, "parity: OK")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Bin, "llama-perplexity", "", "path of llama-perplexity (patched build)")
	f.StringVarP(&opt.Text, "file", "f", "", "text to evaluate")
	f.IntVarP(&opt.Ctx, "ctx-size", "c", 512, "context size per chunk")
	f.IntVarP(&opt.Threads, "threads", "t", 0, "threads (default: llama.cpp's)")
	f.Float64Var(&maxKLD, "max-kld", 1e-6, "mean KL divergence must be below this (llama-perplexity prints 6 decimals)")
	f.BoolVar(&allowPPLDelta, "allow-ppl-delta", false, "do not require equal printed perplexities")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
