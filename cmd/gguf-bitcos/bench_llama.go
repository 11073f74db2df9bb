package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/internal/llamabench"
)

// benchLlamaCmd is `bench llama`: the ratio benchmark of model files and
// peers under llama-bench (internal/llamabench).
func benchLlamaCmd() *cobra.Command {
	var bench, base, tests string
	var peers, envs []string
	var threads []int
	var rounds, reps int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "llama [--bench LLAMA-BENCH] [LABEL=]MODEL.gguf... [--peer LABEL=LLAMA-BENCH:MODEL]...",
		Short: "token generation and prompt speed of model files and peers under llama-bench, as ratios",
		Long: `Runs llama-bench (a llama.cpp build with patches/ applied: --bench) on every MODEL and
every peer (another build's llama-bench on its own model file: ik_llama.cpp's IQ2_BN,
bitnet.cpp's I2_S, ...) in alternated rounds, each once per round in an order rotated by
one every round, all thread counts and tests of an entry in one llama-bench process
(-r REPS repetitions each). It prints per thread count and test each entry's tokens/s
(median, min-max over the rounds) and, per round, its ratio to the base file (--base,
default the first MODEL: give the TQ2_0 file first) and to the fastest peer of the same
round, with the CPU llama-bench names. Ratios measured side by side are what a shared,
noisy machine can compare; it is a benchmark to run by hand, not a test.
--env LABEL=KEY=VALUE runs one entry with more environment (GGML_BITCOS_LAYOUT=native).`,
		Args: asUsage(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := llamabench.Options{Base: base, Threads: threads, Rounds: rounds, Reps: reps,
				Progress: func(format string, a ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", a...) }}
			for _, t := range strings.Split(tests, ",") {
				tt, err := llamabench.ParseTest(strings.TrimSpace(t))
				if err != nil {
					return usagef(cmd, "--tests: %v", err)
				}
				o.Tests = append(o.Tests, tt)
			}
			if bench == "" {
				return usagef(cmd, "--bench: the llama-bench of a build with patches/ applied is required")
			}
			for _, a := range args {
				label, model, ok := strings.Cut(a, "=")
				if !ok {
					label, model = strings.TrimSuffix(filepath.Base(a), ".gguf"), a
				}
				o.Entries = append(o.Entries, llamabench.Entry{Label: label, Bench: bench, Model: model})
			}
			for _, p := range peers {
				label, rest, ok1 := strings.Cut(p, "=")
				bin, model, ok2 := strings.Cut(rest, ":")
				if !ok1 || !ok2 || label == "" || bin == "" || model == "" {
					return usagef(cmd, "--peer %q: want LABEL=LLAMA-BENCH:MODEL", p)
				}
				o.Entries = append(o.Entries, llamabench.Entry{Label: label, Bench: bin, Model: model, Peer: true})
			}
			for _, e := range envs {
				label, kv, ok := strings.Cut(e, "=")
				i := -1
				for j := range o.Entries {
					if o.Entries[j].Label == label {
						i = j
					}
				}
				if !ok || !strings.Contains(kv, "=") || i < 0 {
					return usagef(cmd, "--env %q: want LABEL=KEY=VALUE for a label given", e)
				}
				o.Entries[i].Env = append(o.Entries[i].Env, kv)
			}
			r, err := llamabench.Measure(o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, r)
			}
			r.Print(stdout)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&bench, "bench", "", "llama-bench of a llama.cpp build with patches/ applied (runs every MODEL)")
	f.StringArrayVar(&peers, "peer", nil, "a peer, LABEL=LLAMA-BENCH:MODEL (repeatable)")
	f.StringArrayVar(&envs, "env", nil, "more environment for one entry, LABEL=KEY=VALUE (repeatable)")
	f.StringVar(&base, "base", "", "the label the \"x base\" ratios divide by (default: the first MODEL)")
	f.IntSliceVar(&threads, "threads", []int{1, 2}, "thread counts")
	f.StringVar(&tests, "tests", "tg64,pp128,pp512", "llama-bench tests: tgN (token generation), ppN (prompt processing)")
	f.IntVar(&rounds, "rounds", 3, "rounds (each entry once per round)")
	f.IntVar(&reps, "reps", 2, "llama-bench -r: repetitions per run")
	f.BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return cmd
}
