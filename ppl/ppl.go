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

// Result is what the comparison found: both perplexities, and either the
// candidate's saved logits equal to the base's or llama-perplexity's
// KL-divergence report of the candidate against the base, beside the same
// report of the base against itself (the noise floor of the comparison).
type Result struct {
	PPLBase     float64 `json:"ppl_base"`
	PPLCand     float64 `json:"ppl_candidate"`
	PPLBaseText string  `json:"ppl_base_printed"`
	PPLCandText string  `json:"ppl_candidate_printed"`
	// LogitsIdentical: the candidate's log-probs, as llama-perplexity
	// saves them (16 bits each), are the base's byte for byte. The KLD
	// figures are then 0 by definition and no KLD run is made.
	LogitsIdentical bool `json:"logits_identical"`
	// LogitsDiff says what differs in the saved log-probs, if anything.
	LogitsDiff string  `json:"logits_diff"`
	MeanKLD    float64 `json:"mean_kld"`
	MaxKLD     float64 `json:"max_kld"`
	SameTopP   float64 `json:"same_top_p_percent"`
	// The noise floor: the base against its own saved log-probs (whose
	// 16-bit rounding alone gives a KLD above 0 for a flat distribution).
	// Measured only when the logits differ.
	FloorMeanKLD float64 `json:"floor_mean_kld"`
	FloorMaxKLD  float64 `json:"floor_max_kld"`
	// Floor says which floor the verdict is judged against, in words.
	Floor string `json:"floor"`
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
	// more environment (KEY=VALUE) for one run only: the same file with a
	// backend's path switched off, say
	BaseEnv, CandidateEnv []string
}

// maxTries is how often a run whose summary was lost is repeated.
const maxTries = 5

// Run runs llama-perplexity on Base and on Candidate, saving the log-probs
// of each, and compares the saved files (logits.go): identical files prove
// the candidate's logits equal to the base's at llama-perplexity's 16-bit
// resolution, with nothing more to run. Otherwise it runs the candidate in
// KL-divergence mode against the base's log-probs, and the base against
// them too: the noise floor of that comparison (Result.FloorMeanKLD).
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
	p := newPerplexity(opt, filepath.Join(dir, "base.kld"))
	candLogits := filepath.Join(dir, "candidate.kld")
	var r Result
	if _, r.PPLBaseText, err = p.save(opt.Base, p.baseLogits, opt.BaseExtra, opt.BaseEnv); err != nil {
		return nil, err
	}
	candLog, candPPL, err := p.save(opt.Candidate, candLogits, opt.CandidateExtra, opt.CandidateEnv)
	if err != nil {
		return nil, err
	}
	r.PPLCandText, r.CandLog = candPPL, string(candLog)
	r.PPLBase, _ = strconv.ParseFloat(r.PPLBaseText, 64)
	r.PPLCand, _ = strconv.ParseFloat(r.PPLCandText, 64)
	d, err := compareLogits(p.baseLogits, candLogits)
	if err != nil {
		return nil, err
	}
	r.LogitsIdentical, r.LogitsDiff = d.Identical, d.String()
	if d.Identical {
		r.SameTopP = 100
		r.Floor = "none needed: the candidate's saved log-probs are the base's byte for byte (16-bit store), so the logits agree to its resolution"
		return &r, nil
	}
	c, err := p.kld(opt.Candidate, opt.CandidateExtra, opt.CandidateEnv)
	if err != nil {
		return nil, err
	}
	floor, err := p.kld(opt.Base, opt.BaseExtra, opt.BaseEnv)
	if err != nil {
		return nil, err
	}
	r.MeanKLD, r.MaxKLD, r.SameTopP, r.CandLog = c.MeanKLD, c.MaxKLD, c.SameTopP, c.CandLog
	r.FloorMeanKLD, r.FloorMaxKLD = floor.MeanKLD, floor.MaxKLD
	r.Floor = fmt.Sprintf("the base against its own saved log-probs in this run: mean KLD %s, max %s", KLD(floor.MeanKLD), KLD(floor.MaxKLD))
	return &r, nil
}

// perplexity runs llama-perplexity for Run: the arguments common to every
// run, and where the base's log-probs are saved.
type perplexity struct {
	opt        Options
	common     []string // -f TEXT -c CTX first, then -t and Extra
	baseLogits string
}

func newPerplexity(opt Options, baseLogits string) *perplexity {
	common := []string{"-f", opt.Text, "-c", strconv.Itoa(opt.Ctx)}
	if opt.Threads > 0 {
		common = append(common, "-t", strconv.Itoa(opt.Threads))
	}
	common = append(common, opt.Extra...)
	return &perplexity{opt: opt, common: common, baseLogits: baseLogits}
}

// run runs llama-perplexity with args, env added to the environment, and
// returns what it printed.
func (p *perplexity) run(env []string, args ...string) ([]byte, error) {
	c := exec.Command(p.opt.Bin, args...)
	if len(env) > 0 {
		c.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %v: %w\n%s", p.opt.Bin, args, err, tail(out.Bytes(), 2000))
	}
	return out.Bytes(), nil
}

// args are a run's arguments: model, in KL-divergence mode when kld, the
// log-probs file logits (saved, or read in that mode), then extra.
func (p *perplexity) args(model string, kld bool, logits string, extra []string) []string {
	a := []string{"-m", model}
	if kld {
		a = append(a, "--kl-divergence")
	}
	a = append(append(a, p.common[:4]...), "--kl-divergence-base", logits)
	return append(append(a, p.common[4:]...), extra...)
}

// llama.cpp's logger writes from a thread and the last lines can be
// lost at exit, more often on a loaded machine: save and kld try up to
// maxTries times each.

// save runs model (extra arguments, env) saving its log-probs to logits, and
// returns the output and the final PPL printed.
func (p *perplexity) save(model, logits string, extra, env []string) ([]byte, string, error) {
	for try := 0; ; try++ {
		out, err := p.run(env, p.args(model, false, logits, extra)...)
		if err != nil {
			return nil, "", err
		}
		if m := reFinal.FindSubmatch(out); m != nil {
			return out, string(m[1]), nil
		} else if try == maxTries-1 {
			return nil, "", fmt.Errorf("llama-perplexity printed no final PPL for %s\n%s", model, tail(out, 2000))
		}
	}
}

// kld runs model (extra arguments, env) in KL-divergence mode against the
// base's saved log-probs.
func (p *perplexity) kld(model string, extra, env []string) (Result, error) {
	for try := 0; ; try++ {
		out, err := p.run(env, p.args(model, true, p.baseLogits, extra)...)
		if err != nil {
			return Result{}, err
		}
		r, err := parseKLD(out)
		if err == nil {
			r.CandLog = string(out)
			return r, nil
		} else if try == maxTries-1 {
			return Result{}, fmt.Errorf("%w\n%s", err, tail(out, 2000))
		}
	}
}

// Parity returns nil when r shows parity: the perplexities equal in every
// printed digit (unless allowPPLDelta), and either the saved logits
// identical or, when maxKLD > 0, the candidate's mean KLD less than maxKLD
// above the floor (the base against itself). With maxKLD <= 0 only
// identical logits pass.
func (r *Result) Parity(maxKLD float64, allowPPLDelta bool) error {
	excess := r.MeanKLD - r.FloorMeanKLD
	switch {
	case !allowPPLDelta && r.PPLBaseText != r.PPLCandText:
		return fmt.Errorf("parity fails: PPL %s vs %s", r.PPLCandText, r.PPLBaseText)
	case r.LogitsIdentical:
		return nil
	case maxKLD <= 0:
		return fmt.Errorf("parity fails: the candidate's logits differ from the base's (%s); mean KLD %s against the floor %s of the base against itself (--max-kld allows a mean KLD that far above the floor: for a lossy candidate, or a backend whose runs are not bit-reproducible)",
			r.LogitsDiff, KLD(r.MeanKLD), KLD(r.FloorMeanKLD))
	case !(excess < maxKLD):
		return fmt.Errorf("parity fails: mean KLD %s is %s above the floor %s of the base against itself, not below %g",
			KLD(r.MeanKLD), KLD(excess), KLD(r.FloorMeanKLD), maxKLD)
	}
	return nil
}

// KLD prints a KL divergence as llama-perplexity does (6 decimals), without
// the minus sign its rounding can leave on a zero ("-0.000000").
func KLD(x float64) string {
	s := strconv.FormatFloat(x, 'f', 6, 64)
	if s == "-0.000000" {
		return "0.000000"
	}
	return s
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
