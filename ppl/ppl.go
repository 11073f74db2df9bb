// Package ppl proves perplexity parity of two models with llama.cpp's
// llama-perplexity in KL-divergence mode.
package ppl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
)

// Result is what llama-perplexity's KL-divergence mode reports.
type Result struct {
	PPLBase     float64 `json:"ppl_base"`
	PPLCand     float64 `json:"ppl_candidate"`
	PPLBaseText string  `json:"ppl_base_printed"`
	PPLCandText string  `json:"ppl_candidate_printed"`
	MeanKLD     float64 `json:"mean_kld"`
	MaxKLD      float64 `json:"max_kld"`
	SameTopP    float64 `json:"same_top_p_percent"`
	// the candidate run's output (llama.cpp's log), for callers that check
	// what it said
	CandLog string `json:"-"`
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
func parseKLD(out []byte) (Result, error) {
	var r Result
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

// Options say what Run compares and how.
type Options struct {
	Bin       string   // llama-perplexity (a patched build for BITCOS files)
	Base      string   // the reference model (its logits are saved)
	Candidate string   // the model compared with it
	Text      string   // the text evaluated
	Ctx       int      // context size per chunk (default 512)
	Threads   int      // 0: llama.cpp's default
	Extra     []string // more llama-perplexity arguments for both runs (e.g. -ngl 99)
	// more arguments for one run only: the same file over two servers
	// (--rpc), say, compares two ways of running it
	BaseExtra, CandidateExtra []string
}

// Run runs llama-perplexity on Base, saving its logits, then on Candidate in
// KL-divergence mode against them, and returns what it printed.
func Run(opt Options) (*Result, error) {
	if opt.Bin == "" || opt.Text == "" {
		return nil, fmt.Errorf("ppl: the llama-perplexity path and the text are required")
	}
	if opt.Ctx == 0 {
		opt.Ctx = 512
	}
	dir, err := os.MkdirTemp("", "gguf-bitcos-ppl-*")
	if err != nil {
		return nil, err
	}
	// The saved logits are large: gone on return and on an interrupt.
	cancel := atomicfile.OnInterrupt(func() { os.RemoveAll(dir) })
	defer cancel()
	defer os.RemoveAll(dir)
	logits := filepath.Join(dir, "base.kld")
	common := []string{"-f", opt.Text, "-c", strconv.Itoa(opt.Ctx), "--kl-divergence-base", logits}
	if opt.Threads > 0 {
		common = append(common, "-t", strconv.Itoa(opt.Threads))
	}
	common = append(common, opt.Extra...)
	run := func(args ...string) ([]byte, error) {
		c := exec.Command(opt.Bin, args...)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Run(); err != nil {
			return out.Bytes(), fmt.Errorf("%s %v: %w\n%s", opt.Bin, args, err, tail(out.Bytes(), 2000))
		}
		return out.Bytes(), nil
	}
	// llama.cpp's logger writes from a thread and the last lines can be
	// lost at exit: up to three tries each.
	var m [][]byte
	for try := 0; m == nil; try++ {
		base, err := run(append(append([]string{"-m", opt.Base}, common...), opt.BaseExtra...)...)
		if err != nil {
			return nil, err
		}
		if m = reFinal.FindSubmatch(base); m == nil && try == 2 {
			return nil, fmt.Errorf("llama-perplexity printed no final PPL for %s\n%s", opt.Base, tail(base, 2000))
		}
	}
	var r Result
	for try := 0; ; try++ {
		out, err := run(append(append([]string{"-m", opt.Candidate, "--kl-divergence"}, common...), opt.CandidateExtra...)...)
		if err != nil {
			return nil, err
		}
		if r, err = parseKLD(out); err == nil {
			r.CandLog = string(out)
			break
		} else if try == 2 {
			return nil, fmt.Errorf("%w\n%s", err, tail(out, 2000))
		}
	}
	// The base run prints its PPL with the precision of its "Final
	// estimate" line (4 decimals); its "Mean PPL(base)" in the KLD summary
	// comes from the saved, quantized log-probs and differs in the 4th
	// decimal even for identical models.
	r.PPLBaseText = string(m[1])
	r.PPLBase, _ = strconv.ParseFloat(r.PPLBaseText, 64)
	decimals := 0
	if i := bytes.IndexByte(m[1], '.'); i >= 0 {
		decimals = len(m[1]) - i - 1
	}
	r.PPLCandText = strconv.FormatFloat(r.PPLCand, 'f', decimals, 64)
	return &r, nil
}

// Parity returns nil when r shows parity: the perplexities equal in every
// printed digit (unless allowPPLDelta) and the mean KLD below maxKLD.
func (r *Result) Parity(maxKLD float64, allowPPLDelta bool) error {
	switch {
	case !allowPPLDelta && r.PPLBaseText != r.PPLCandText:
		return fmt.Errorf("parity fails: PPL %s vs %s", r.PPLCandText, r.PPLBaseText)
	case !(r.MeanKLD < maxKLD):
		return fmt.Errorf("parity fails: mean KLD %.6f is not below %g", r.MeanKLD, maxKLD)
	}
	return nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
