// Package llamabench runs llama.cpp's llama-bench on several model files
// (and peers: other builds, other formats) in alternated rounds on one
// machine and reports every file's speed as a ratio to a base file (TQ2_0)
// and to the best peer in the same round: the ratio benchmark of
// `gguf-bitcos bench llama`. Ratios measured side by side, round by round,
// are what a shared and noisy machine can compare; absolute tokens per
// second are printed beside them, never compared across machines.
package llamabench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gguf-bitcos/gguf-bitcos/internal/summary"
)

// Entry is one thing measured: a model file run by a llama-bench binary
// (the series' build, or a peer's: ik_llama.cpp, bitnet.cpp), with extra
// environment (GGML_BITCOS_LAYOUT=native, say).
type Entry struct {
	Label string   `json:"label"`
	Bench string   `json:"bench"` // llama-bench's path
	Model string   `json:"model"`
	Env   []string `json:"env,omitempty"` // KEY=VALUE, added to this process's environment
	Peer  bool     `json:"peer"`          // a peer: the "best peer" ratios are taken against the fastest of them
}

// Test is one llama-bench test: prompt processing of Prompt tokens, or token
// generation of Gen tokens.
type Test struct {
	Prompt, Gen int
}

func (t Test) String() string {
	if t.Prompt > 0 {
		return "pp" + strconv.Itoa(t.Prompt)
	}
	return "tg" + strconv.Itoa(t.Gen)
}

// ParseTest reads "tg64" or "pp128".
func ParseTest(s string) (Test, error) {
	n, err := strconv.Atoi(s[min(2, len(s)):])
	switch {
	case err != nil || n <= 0:
	case strings.HasPrefix(s, "pp"):
		return Test{Prompt: n}, nil
	case strings.HasPrefix(s, "tg"):
		return Test{Gen: n}, nil
	}
	return Test{}, fmt.Errorf("test %q: want tgN or ppN (N > 0)", s)
}

// Runner runs llama-bench for e with args and returns its standard output.
type Runner func(e Entry, args []string) ([]byte, error)

// Exec is the Runner that runs e.Bench.
func Exec(e Entry, args []string) ([]byte, error) {
	cmd := exec.Command(e.Bench, args...)
	cmd.Env = append(os.Environ(), e.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tail := stderr.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return nil, fmt.Errorf("%s %s: %v\n%s", e.Bench, strings.Join(args, " "), err, tail)
	}
	return out, nil
}

// Options says what to measure.
type Options struct {
	Entries []Entry
	Base    string // the label of the base file (the ratios' "x base"); "" = the first entry that is no peer
	Threads []int
	Tests   []Test
	Rounds  int // rounds; each runs every entry once, the order rotated by one per round
	Reps    int // llama-bench -r: repetitions within one run (their mean is the run's figure)
	Run     Runner
	// Progress, when set, gets a line per run.
	Progress func(format string, args ...any)
}

// Result is what Measure found.
type Result struct {
	CPU     string   `json:"cpu"` // llama-bench's cpu_info of the first run
	Base    string   `json:"base"`
	Rounds  int      `json:"rounds"`
	Reps    int      `json:"reps"`
	Entries []Entry  `json:"entries"`
	Order   []string `json:"order"` // the labels in the order they ran, round after round
	Rows    []Row    `json:"rows"`
}

// Row is one thread count and test.
type Row struct {
	Threads int    `json:"threads"`
	Test    string `json:"test"`
	Cells   []Cell `json:"cells"` // in the order of Entries
}

// Cell is one entry's figures in a row: tokens per second per round, and
// per round its ratio to the base file and to the fastest peer of that round.
type Cell struct {
	Label      string    `json:"label"`
	TS         []float64 `json:"tokens_per_s"`
	Median     float64   `json:"median_tokens_per_s"`
	VsBase     Summary   `json:"x_base"`
	VsBestPeer Summary   `json:"x_best_peer"` // zero without peers
}

// Summary is the median, min and max of per-round figures.
type Summary = summary.Summary

type key struct {
	threads int
	test    string
}

// line is the part of llama-bench's JSONL output this package reads.
type line struct {
	CPU     string  `json:"cpu_info"`
	Threads int     `json:"n_threads"`
	Prompt  int     `json:"n_prompt"`
	Gen     int     `json:"n_gen"`
	AvgTS   float64 `json:"avg_ts"`
}

func (o *Options) check() error {
	if len(o.Entries) == 0 || len(o.Threads) == 0 || len(o.Tests) == 0 || o.Rounds < 1 || o.Reps < 1 {
		return fmt.Errorf("llamabench: entries, threads, tests, rounds and repetitions are required")
	}
	seen := map[string]bool{}
	for _, e := range o.Entries {
		if e.Label == "" || seen[e.Label] {
			return fmt.Errorf("llamabench: label %q is empty or given twice", e.Label)
		}
		seen[e.Label] = true
	}
	if o.Base == "" {
		for _, e := range o.Entries {
			if !e.Peer {
				o.Base = e.Label
				break
			}
		}
	}
	if !seen[o.Base] {
		return fmt.Errorf("llamabench: the base %q is none of the entries", o.Base)
	}
	if o.Run == nil {
		o.Run = Exec
	}
	return nil
}

// args is one run's llama-bench command line: every thread count and test
// of o in one process (one model load per run).
func (o *Options) args(e Entry) []string {
	var ts, pp, tg []string
	for _, t := range o.Threads {
		ts = append(ts, strconv.Itoa(t))
	}
	for _, t := range o.Tests {
		if t.Prompt > 0 {
			pp = append(pp, strconv.Itoa(t.Prompt))
		} else {
			tg = append(tg, strconv.Itoa(t.Gen))
		}
	}
	if pp == nil {
		pp = []string{"0"}
	}
	if tg == nil {
		tg = []string{"0"}
	}
	return []string{"-m", e.Model, "-t", strings.Join(ts, ","), "-p", strings.Join(pp, ","), "-n", strings.Join(tg, ","),
		"-r", strconv.Itoa(o.Reps), "-o", "json"} // json: ik_llama.cpp's llama-bench has no jsonl
}

// Measure runs o.Rounds rounds, each entry once per round, entry i of round
// r being o.Entries[(i + r) % n] (so each entry runs early and late), and
// computes the rows.
func Measure(o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	n := len(o.Entries)
	res := &Result{Base: o.Base, Rounds: o.Rounds, Reps: o.Reps, Entries: o.Entries}
	// ts[entry][key][round]
	ts := make([]map[key][]float64, n)
	for i := range ts {
		ts[i] = map[key][]float64{}
	}
	for r := range o.Rounds {
		for j := range n {
			i := (j + r) % n
			e := o.Entries[i]
			if o.Progress != nil {
				o.Progress("round %d of %d: %s", r+1, o.Rounds, e.Label)
			}
			out, err := o.Run(e, o.args(e))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Label, err)
			}
			got, cpu, err := parse(out)
			if err != nil {
				return nil, fmt.Errorf("%s (%s): %w", e.Label, e.Bench, err)
			}
			if res.CPU == "" {
				res.CPU = cpu
			}
			for _, th := range o.Threads {
				for _, t := range o.Tests {
					k := key{th, t.String()}
					v, ok := got[k]
					if !ok {
						return nil, fmt.Errorf("%s (%s): no %s at %d threads in llama-bench's output", e.Label, e.Bench, k.test, th)
					}
					ts[i][k] = append(ts[i][k], v)
				}
			}
			res.Order = append(res.Order, e.Label)
		}
	}
	base := slices.IndexFunc(o.Entries, func(e Entry) bool { return e.Label == o.Base })
	for _, th := range o.Threads {
		for _, t := range o.Tests {
			k := key{th, t.String()}
			row := Row{Threads: th, Test: k.test}
			for i, e := range o.Entries {
				c := Cell{Label: e.Label, TS: ts[i][k], Median: summary.Of(ts[i][k]).Median}
				vb, vp := make([]float64, o.Rounds), []float64(nil)
				for r := range o.Rounds {
					vb[r] = ts[i][k][r] / ts[base][k][r]
					best := 0.0
					for p, pe := range o.Entries {
						if pe.Peer {
							best = max(best, ts[p][k][r])
						}
					}
					if best > 0 {
						vp = append(vp, ts[i][k][r]/best)
					}
				}
				c.VsBase, c.VsBestPeer = summary.Of(vb), summary.Of(vp)
				row.Cells = append(row.Cells, c)
			}
			res.Rows = append(res.Rows, row)
		}
	}
	return res, nil
}

// parse reads llama-bench's JSON (-o json: an array of results; JSONL, one
// per line, is taken too): tokens per second by thread count and test, and
// the CPU it names.
func parse(out []byte) (map[key]float64, string, error) {
	var xs []line
	if t := bytes.TrimSpace(out); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &xs); err != nil {
			return nil, "", fmt.Errorf("llama-bench output is not JSON (-o json): %v: %.200q", err, t)
		}
	} else {
		for _, l := range bytes.Split(out, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			var x line
			if err := json.Unmarshal(l, &x); err != nil {
				return nil, "", fmt.Errorf("llama-bench output is not JSON (-o json) or JSONL: %v: %.200q", err, l)
			}
			xs = append(xs, x)
		}
	}
	got := map[key]float64{}
	cpu := ""
	for _, x := range xs {
		t := Test{Prompt: x.Prompt, Gen: x.Gen}
		if x.Prompt > 0 && x.Gen > 0 || x.AvgTS <= 0 {
			continue // a combined test (-pg) or a failed one
		}
		got[key{x.Threads, t.String()}] = x.AvgTS
		cpu = x.CPU
	}
	if len(got) == 0 {
		return nil, "", fmt.Errorf("no results in llama-bench's output")
	}
	return got, cpu, nil
}

// Print writes the result as a table: per thread count and test, each
// entry's median tokens per second (min-max over the rounds) and its
// per-round ratios to the base and to the best peer (median, min-max).
func (r *Result) Print(w io.Writer) {
	fmt.Fprintf(w, "CPU: %s (llama-bench's cpu_info)\n", r.CPU)
	fmt.Fprintf(w, "%d rounds, each entry once per round in rotated order; llama-bench -r %d; x base: / %s, x best peer: / the fastest peer of the same round\n",
		r.Rounds, r.Reps, r.Base)
	for _, e := range r.Entries {
		kind := "file"
		if e.Peer {
			kind = "peer"
		}
		env := ""
		if len(e.Env) > 0 {
			env = " " + strings.Join(e.Env, " ")
		}
		fmt.Fprintf(w, "  %s (%s): %s%s, %s\n", e.Label, kind, e.Model, env, e.Bench)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threads\ttest\tentry\tt/s median (min-max)\tx base median (min-max)\tx best peer median (min-max)\t")
	for _, row := range r.Rows {
		for _, c := range row.Cells {
			s := summary.Of(c.TS)
			peer := "-"
			if c.VsBestPeer != (Summary{}) {
				peer = fmt.Sprintf("%.2fx (%.2f-%.2f)", c.VsBestPeer.Median, c.VsBestPeer.Min, c.VsBestPeer.Max)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%.2f (%.2f-%.2f)\t%.2fx (%.2f-%.2f)\t%s\t\n", row.Threads, row.Test, c.Label,
				s.Median, s.Min, s.Max, c.VsBase.Median, c.VsBase.Min, c.VsBase.Max, peer)
		}
	}
	tw.Flush()
}
