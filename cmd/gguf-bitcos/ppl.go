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
		Long: `ppl runs llama-perplexity on BASE and on CANDIDATE, saving the log-probs of
each, and reports both perplexities. When the saved log-probs are the same
bytes, the logits agree at llama-perplexity's 16-bit resolution: parity, and
nothing more is run. Otherwise it runs CANDIDATE in KL-divergence mode against
BASE's log-probs, and BASE against them too: the noise floor of the comparison
itself (the 16-bit store alone gives a flat distribution a KLD above 0), and
reports the mean and maximum KLD of both and how often the top token agrees.
It exits with status 3 when parity fails: the perplexities differ in any
printed digit (unless --allow-ppl-delta), or the logits differ and either
--max-kld is not given (a lossless repack must give the same logits) or the
candidate's mean KLD is not less than --max-kld above the floor. CANDIDATE
needs a llama.cpp built with patches/ when it holds BITCOS tensors. Arguments
after -- go to every llama-perplexity run (for example -- -ngl 99).`,
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
				fmt.Fprintf(stdout, "PPL base      %s\nPPL candidate %s\n", r.PPLBaseText, r.PPLCandText)
				if r.LogitsIdentical {
					fmt.Fprintln(stdout, "logits        identical (the saved 16-bit log-probs are the same bytes)")
				} else {
					fmt.Fprintf(stdout, "logits        differ: %s\nmean KLD      %s (max %s)\nfloor         %s (max %s): the base against itself\nsame top p    %.3f %%\n",
						r.LogitsDiff, ppl.KLD(r.MeanKLD), ppl.KLD(r.MaxKLD), ppl.KLD(r.FloorMeanKLD), ppl.KLD(r.FloorMaxKLD), r.SameTopP)
				}
			}
			if err := r.Parity(maxKLD, allowPPLDelta); err != nil {
				return exitErr{exitParity, err.Error()}
			}
			if !asJSON {
				if r.LogitsIdentical {
					fmt.Fprintln(stdout, "parity: OK (identical logits)")
				} else {
					fmt.Fprintf(stdout, "parity: OK (mean KLD %s above the floor, below --max-kld %g)\n", ppl.KLD(r.MeanKLD-r.FloorMeanKLD), maxKLD)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.Bin, "llama-perplexity", "", "path of llama-perplexity (patched build)")
	f.StringVarP(&opt.Text, "file", "f", "", "text to evaluate")
	f.IntVarP(&opt.Ctx, "ctx-size", "c", 512, "context size per chunk")
	f.IntVarP(&opt.Threads, "threads", "t", 0, "threads (default: llama.cpp's)")
	f.Float64Var(&maxKLD, "max-kld", 0, "accept logits that differ when the mean KL divergence is less than this above the floor of the base against itself (default: only identical logits pass)")
	f.BoolVar(&allowPPLDelta, "allow-ppl-delta", false, "do not require equal printed perplexities")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
