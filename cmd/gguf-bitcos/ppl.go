package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/spf13/cobra"
)

// pplResult is what llama-perplexity's KL-divergence mode reports.
type pplResult struct {
	PPLBase     float64 `json:"ppl_base"`
	PPLCand     float64 `json:"ppl_candidate"`
	PPLBaseText string  `json:"ppl_base_printed"`
	PPLCandText string  `json:"ppl_candidate_printed"`
	MeanKLD     float64 `json:"mean_kld"`
	MaxKLD      float64 `json:"max_kld"`
	SameTopP    float64 `json:"same_top_p_percent"`
}

var (
	reFinal   = regexp.MustCompile(`Final estimate: PPL = (\S+)`)
	rePPLQ    = regexp.MustCompile(`Mean PPL\(Q\)\s*:\s*(\S+)`)
	rePPLBase = regexp.MustCompile(`Mean PPL\(base\)\s*:\s*(\S+)`)
	reKLD     = regexp.MustCompile(`Mean\s+KLD:\s*(\S+)`)
	reMaxKLD  = regexp.MustCompile(`Maximum KLD:\s*(\S+)`)
	reTopP    = regexp.MustCompile(`Same top p:\s*(\S+)`)
)

// parseKLD reads the summary that llama-perplexity --kl-divergence prints.
func parseKLD(out []byte) (pplResult, error) {
	var r pplResult
	get := func(re *regexp.Regexp, what string, text *string) (float64, error) {
		m := re.FindSubmatch(out)
		if m == nil {
			return 0, fmt.Errorf("llama-perplexity printed no %q", what)
		}
		if text != nil {
			*text = string(m[1])
		}
		return strconv.ParseFloat(string(m[1]), 64)
	}
	var err error
	if r.PPLCand, err = get(rePPLQ, "Mean PPL(Q)", &r.PPLCandText); err != nil {
		return r, err
	}
	if r.PPLBase, err = get(rePPLBase, "Mean PPL(base)", &r.PPLBaseText); err != nil {
		return r, err
	}
	if r.MeanKLD, err = get(reKLD, "Mean KLD", nil); err != nil {
		return r, err
	}
	if r.MaxKLD, err = get(reMaxKLD, "Maximum KLD", nil); err != nil {
		return r, err
	}
	if r.SameTopP, err = get(reTopP, "Same top p", nil); err != nil {
		return r, err
	}
	return r, nil
}

func pplCmd() *cobra.Command {
	var (
		bin, text     string
		ctx, threads  int
		maxKLD        float64
		allowPPLDelta bool
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "ppl --llama-perplexity PATH BASE.gguf CANDIDATE.gguf -f TEXT",
		Short: "Prove perplexity parity of a repack with llama-perplexity (KL-divergence mode)",
		Long: `ppl runs llama-perplexity on BASE (saving its logits) and on CANDIDATE in
KL-divergence mode against them, and reports both perplexities, the mean and
maximum KL divergence and how often the top token agrees. It exits with status
3 when parity fails: the perplexities differ in any printed digit (unless
--allow-ppl-delta) or the mean KLD is not below --max-kld. CANDIDATE needs a
llama.cpp built with patches/ when it holds BITCOS tensors.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if bin == "" || text == "" {
				return fmt.Errorf("--llama-perplexity and -f are required")
			}
			dir, err := os.MkdirTemp("", "gguf-bitcos-ppl-*")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			logits := filepath.Join(dir, "base.kld")
			common := []string{"-f", text, "-c", strconv.Itoa(ctx), "--kl-divergence-base", logits}
			if threads > 0 {
				common = append(common, "-t", strconv.Itoa(threads))
			}
			run := func(args ...string) ([]byte, error) {
				c := exec.Command(bin, args...)
				var out bytes.Buffer
				c.Stdout, c.Stderr = &out, &out
				if err := c.Run(); err != nil {
					return out.Bytes(), fmt.Errorf("%s %v: %w\n%s", bin, args, err, tail(out.Bytes(), 2000))
				}
				return out.Bytes(), nil
			}
			// llama.cpp's logger writes from a thread and the last lines
			// can be lost at exit: up to three tries each.
			var m [][]byte
			for try := 0; m == nil; try++ {
				base, err := run(append([]string{"-m", args[0]}, common...)...)
				if err != nil {
					return err
				}
				if m = reFinal.FindSubmatch(base); m == nil && try == 2 {
					return fmt.Errorf("llama-perplexity printed no final PPL for %s\n%s", args[0], tail(base, 2000))
				}
			}
			var r pplResult
			for try := 0; ; try++ {
				out, err := run(append([]string{"-m", args[1], "--kl-divergence"}, common...)...)
				if err != nil {
					return err
				}
				if r, err = parseKLD(out); err == nil {
					break
				} else if try == 2 {
					return fmt.Errorf("%w\n%s", err, tail(out, 2000))
				}
			}
			// The base run prints its PPL with the precision of its
			// "Final estimate" line (4 decimals); its "Mean PPL(base)" in
			// the KLD summary comes from the saved, quantized log-probs
			// and differs in the 4th decimal even for identical models.
			r.PPLBaseText = string(m[1])
			r.PPLBase, _ = strconv.ParseFloat(r.PPLBaseText, 64)
			decimals := 0
			if i := bytes.IndexByte(m[1], '.'); i >= 0 {
				decimals = len(m[1]) - i - 1
			}
			r.PPLCandText = strconv.FormatFloat(r.PPLCand, 'f', decimals, 64)
			if asJSON {
				if err := writeJSON(stdout, r); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(stdout, "PPL base      %s\nPPL candidate %s\nmean KLD      %.6f (max %.6f)\nsame top p    %.3f %%\n",
					r.PPLBaseText, r.PPLCandText, r.MeanKLD, r.MaxKLD, r.SameTopP)
			}
			switch {
			case !allowPPLDelta && r.PPLBaseText != r.PPLCandText:
				return exitErr{exitParity, fmt.Sprintf("parity fails: PPL %s vs %s", r.PPLCandText, r.PPLBaseText)}
			case !(r.MeanKLD < maxKLD):
				return exitErr{exitParity, fmt.Sprintf("parity fails: mean KLD %.6f is not below %g", r.MeanKLD, maxKLD)}
			}
			fmt.Fprintln(stdout, "parity: OK")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&bin, "llama-perplexity", "", "path of llama-perplexity (patched build)")
	f.StringVarP(&text, "file", "f", "", "text to evaluate")
	f.IntVarP(&ctx, "ctx-size", "c", 512, "context size per chunk")
	f.IntVarP(&threads, "threads", "t", 0, "threads (default: llama.cpp's)")
	f.Float64Var(&maxKLD, "max-kld", 1e-6, "mean KL divergence must be below this (llama-perplexity prints 6 decimals)")
	f.BoolVar(&allowPPLDelta, "allow-ppl-delta", false, "do not require equal printed perplexities")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
