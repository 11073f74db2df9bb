package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/advise"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// readModel is the advise.ModelReader of the verb: the numbers of
// `stats --sample`.
func readModel(path string, samples int) ([]advise.ModelTensor, float64, error) {
	fs, err := repack.StatsWith(path, repack.StatsOptions{Sample: samples})
	if err != nil {
		return nil, 0, err
	}
	ts := make([]advise.ModelTensor, len(fs.Tensors))
	for i, t := range fs.Tensors {
		ts[i] = advise.ModelTensor{Name: t.Name, Dims: t.Dims, Weights: t.Weights, ScaleBytes: t.ScaleBytes}
	}
	return ts, fs.Total.Z, nil
}

func adviseCmd() *cobra.Command {
	var asJSON, quiet bool
	var threads, kernel, bld string
	var shapes []string
	var z float64
	var budget time.Duration
	var bufferMiB int64
	cmd := &cobra.Command{
		Use:   "advise [MODEL]",
		Short: "Measure here whether BITCOS runs faster natively or as TQ2_0 blocks decoded at load, each against the TQ2_0 file, beside the loader's rule",
		Long: `Runs the C kernels the llama.cpp patch ships (through cgo) and ggml's TQ2_0
kernel on generated ternary weights (MODEL's largest matrix shapes and zero
density, sampled, when MODEL is given; else the 2B shapes at z = 0.42): the
native layout (the BITCOS kernel the rule picks), the tq2_0 layout (TQ2_0
blocks made at load, with the kernel the loader runs for them: the AVX-512
VNNI one, bitcos_tq2_0_vnni.c, in a native build on a VNNI CPU, else
ggml's; for a model with a per-tensor f32 scale, an I2_S source, f32 blocks
with the kernel patch 0013 runs for them) and the TQ2_0 file in stock
llama.cpp (ggml's kernel), and prints per
thread count: the streaming-read bandwidth, the two-term roofline prediction
T = max(bytes / bandwidth, compute) per 32 weights (DESIGN.md §1), the
measured GEMV (the three alternated over a stack of matrices larger than the
last-level cache), each layout's speed relative to the TQ2_0 file, which
layout wins and by how much, and what the loader's rule
(kernels/c/bitcos_select.h) chooses here. Then the same for batches (prompt
processing): patch 0012's batched kernel (kernels/c/bitcos_gemm.c, the
build the llama.cpp build runs here) on 64 columns and groups of 8 rows,
its panels decoded from the BITCOS planes (native) or from the TQ2_0 blocks
(tq2_0 layout), against the TQ2_0 file's kernel once per (row, column), data
in cache. Timings are medians of repeats after a warm-up, min and max beside
them.`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := advise.Options{Budget: budget, Kernel: kernel, Build: bld, ReadBytes: bufferMiB << 20, StackBytes: bufferMiB << 20}
			if !quiet && !asJSON {
				o.Progress = os.Stderr
			}
			if !slices.Contains(advise.Builds, bld) {
				return usagef(cmd, "--build %q: one of %s", bld, strings.Join(advise.Builds, ", "))
			}
			if names := advise.KernelNames(); kernel != "" && names != nil && !slices.Contains(names, kernel) {
				return usagef(cmd, "--kernel %q: one of %s", kernel, strings.Join(names, ", "))
			}
			var err error
			if cmd.Flags().Changed("threads") {
				if o.Threads, err = advise.ParseThreads(threads); err != nil {
					return usagef(cmd, "%v", err)
				}
			}
			for _, s := range shapes {
				sh, err := advise.ParseShape(s)
				if err != nil {
					return usagef(cmd, "%v", err)
				}
				o.Shapes = append(o.Shapes, sh)
			}
			if len(args) == 1 {
				if len(shapes) > 0 {
					return usagef(cmd, "--shape and MODEL: give one of them")
				}
				if err := advise.FromModel(args[0], readModel, &o); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("z") {
				if z < 0 || z > 1 {
					return usagef(cmd, "--z %g: a zero density in [0, 1]", z)
				}
				o.Z, o.ZSource = z, "flag"
			}
			r, err := advise.Run(o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, r)
			}
			printAdvice(r)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress lines on stderr")
	f.StringVar(&threads, "threads", "", "thread counts: N for 1..N, or a list like 1,2,4 (default 1..nproc; above 8 CPUs the powers of two and nproc)")
	f.DurationVar(&budget, "budget", advise.DefaultBudget, "time for all measurements (data generation not counted)")
	f.Float64Var(&z, "z", 0, "zero density of the generated weights (default 0.42, or MODEL's)")
	f.StringSliceVar(&shapes, "shape", nil, "matrix shape KxROWS, repeatable (default 2560x6912 and 6912x2560)")
	f.StringVar(&kernel, "kernel", "", "force a BITCOS kernel in the measurement (llama.cpp runs the one its build compiles)")
	f.StringVar(&bld, "build", advise.BuildNative, "the llama.cpp build to model: "+strings.Join(advise.Builds, ", "))
	f.Int64Var(&bufferMiB, "buffer-mib", 0, "MiB of the read buffer and of the GEMV stack (default max(256, 8 x L3))")
	completeValues(cmd, "build", advise.Builds...)
	completeValues(cmd, "kernel", advise.KernelNames()...)
	return cmd
}

func printAdvice(r *advise.Result) {
	c := r.CPU
	fmt.Fprintf(stdout, "CPU: %s (%s family %#x model %#x), %d logical CPUs, L3 %s; %s\n", c.Brand, c.Vendor, c.Family, c.Model,
		c.LogicalCores, units.Bytes(int64(c.L3Bytes)), strings.Join(c.Features, " "))
	fmt.Fprintf(stdout, "build %s: kernels compiled and runnable here: %s\n", r.Build, strings.Join(r.BuiltKernels, " "))
	fmt.Fprintf(stdout, "loader's rule (kernels/c/bitcos_select.h): kernel %s (%s); layout %s (%s)\n", r.Rule.Kernel, r.Rule.KernelWhy, r.Rule.Layout, r.Rule.LayoutWhy)
	for _, k := range r.Kernels {
		fmt.Fprintf(stdout, "  %s runs %s (%s)\n", roleNames(k.Roles), k.Name, k.Build)
	}
	scales := "fp16 per 256"
	if !r.FP16Scales {
		scales = "one f32 per tensor"
	}
	fmt.Fprintf(stdout, "weights: z = %.3f (%s), scales %s\n", r.Z, r.ZSource, scales)
	for _, s := range r.Shapes {
		fmt.Fprintf(stdout, "  %v: BITCOS %.3f, TQ2_0 %.3f bytes per 32 weights\n", s.Shape, s.BitcosBytes32, s.TQ2Bytes32)
	}
	fmt.Fprintf(stdout, "GEMV stack: %d layers, %.0fM weights, BITCOS %s, TQ2_0 %s; read buffer %s\n", r.Stack.Layers, float64(r.Stack.Weights)/1e6,
		units.Bytes(r.Stack.BitcosBytes), units.Bytes(r.Stack.TQ2Bytes), units.Bytes(r.ReadBufferBytes))
	fmt.Fprintln(stdout, "compute, data in cache, ns per 32 weights per thread: median (min-max, repeats)")
	for _, k := range r.Kernels {
		for i, cr := range k.Compute {
			if i > 0 && cr.Threads != k.Compute[i-1].Threads {
				fmt.Fprintln(stdout)
			}
			if i == 0 || cr.Threads != k.Compute[i-1].Threads {
				fmt.Fprintf(stdout, "  %s [%s], %d thread(s):", k.Name, roleNames(k.Roles), cr.Threads)
			}
			fmt.Fprintf(stdout, " %dx%d %.3f (%.3f-%.3f, %d)", cr.K, cr.Rows, cr.Ns32.Median, cr.Ns32.Min, cr.Ns32.Max, cr.Ns32.N)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout, "roofline:", r.Roofline)
	fmt.Fprintln(stdout, "ns per 32 weights are per thread; \"x file\" = the TQ2_0 file's time (ggml's TQ2_0 kernel, stock llama.cpp) / the layout's: above 1 faster than the TQ2_0 file")
	fmt.Fprintln(stdout, "predicted (roofline):")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threads\tread GB/s (min-max)\tbeta/thread\tnative ns\ttq2_0 layout ns\tTQ2_0 file ns\tnative x file\ttq2_0 x file\twinner\t")
	for _, t := range r.Threads {
		p := t.Predicted
		fmt.Fprintf(tw, "%d\t%.1f (%.1f-%.1f)\t%.2f\t%.3f %s\t%.3f %s\t%.3f %s\t%.2fx\t%.2fx\t%s\t\n",
			t.Threads, t.ReadGBs.Median, t.ReadGBs.Min, t.ReadGBs.Max, t.Beta, p.BitcosNs32, p.BitcosBy, p.TQ2Ns32, p.TQ2By, p.FileNs32, p.FileBy,
			p.NativeVsFile, p.TQ2VsFile, t.PredictedWinner)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "measured (GEMV over the stack, the three alternated round by round; x file: median of the rounds' ratios):")
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threads\tnative ns\ttq2_0 layout ns\tTQ2_0 file ns\tnative x file (min-max)\ttq2_0 x file (min-max)\trounds\twinner\trule\t")
	for _, t := range r.Threads {
		m := t.Measured
		agree := agreement(t.Agrees, m.Verdict)
		fmt.Fprintf(tw, "%d\t%.3f\t%.3f\t%.3f\t%.2fx (%.2f-%.2f)\t%.2fx (%.2f-%.2f)\t%d\t%s +%.0f%%\t%s %s\t\n",
			t.Threads, m.BitcosNs32, m.TQ2Ns32, m.FileNs32, m.NativeVsFile.Median, m.NativeVsFile.Min, m.NativeVsFile.Max,
			m.TQ2VsFile.Median, m.TQ2VsFile.Min, m.TQ2VsFile.Max, len(m.Ratios), m.Verdict.Winner, 100*m.Verdict.Margin, t.RuleLayout, agree)
	}
	tw.Flush()
	if r.Batched != nil {
		printBatched(r.Batched)
	}
	if r.Q2_0 != nil {
		printQ2_0(r.Q2_0)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(stdout, "note:", n)
	}
}

// agreement says whether the rule's layout is the measured winner, and, where
// not, whether every round said so (then naming the GGML_BITCOS_LAYOUT that
// ran faster).
func agreement(agrees bool, v advise.Verdict) string {
	switch {
	case agrees:
		return "agrees"
	case !v.Clear:
		return "DISAGREES (within the rounds' noise)"
	}
	return "DISAGREES: GGML_BITCOS_LAYOUT=" + v.Winner + " runs faster here"
}

// printBatched prints the batched kernel (prompt processing) of both layouts
// against the TQ2_0 file's kernel run per (row, column), or why it was not
// measured.
func printBatched(b *advise.BatchedResult) {
	if b.NotRun != "" {
		fmt.Fprintln(stdout, "batched (prompts): not measured:", b.NotRun)
		return
	}
	var shapes []string
	for _, s := range b.Shapes {
		shapes = append(shapes, s.String())
	}
	fmt.Fprintf(stdout, "batched (prompts): bitcos_gemm.c %s, %d columns x groups of %d rows (panels of %d); data in cache (%s), every thread its own loop, the three alternated round by round\n",
		b.Gemm, b.Columns, b.GroupRows, b.PanelRows, strings.Join(shapes, ", "))
	fmt.Fprintf(stdout, "  native layout runs %s\n  tq2_0 layout runs %s\n  TQ2_0 file runs %s\n", b.NativeKernel, b.TQ2Kernel, b.FileKernel)
	fmt.Fprintln(stdout, "  ns per 32 weights per column per thread, median (min); x file: median of the rounds' ratios (the TQ2_0 file = 1):")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threads\tnative ns\ttq2_0 layout ns\tTQ2_0 file ns\tnative x file (min-max)\ttq2_0 x file (min-max)\trounds\twinner\trule\t")
	for _, t := range b.Threads {
		fmt.Fprintf(tw, "%d\t%.3f (%.3f)\t%.3f (%.3f)\t%.3f (%.3f)\t%.2fx (%.2f-%.2f)\t%.2fx (%.2f-%.2f)\t%d\t%s +%.0f%%\t%s %s\t\n",
			t.Threads, t.NativeNs32.Median, t.NativeNs32.Min, t.TQ2Ns32.Median, t.TQ2Ns32.Min, t.FileNs32.Median, t.FileNs32.Min,
			t.NativeVsFile.Median, t.NativeVsFile.Min, t.NativeVsFile.Max, t.TQ2VsFile.Median, t.TQ2VsFile.Min, t.TQ2VsFile.Max,
			len(t.Ratios), t.Verdict.Winner, 100*t.Verdict.Margin, t.RuleLayout, agreement(t.Agrees, t.Verdict))
	}
	tw.Flush()
}

// printQ2_0 prints the measurement of weights with scales per 64 (Q2_0
// sources): the native layout (rows decoded into Q2_0 blocks per product)
// against the Q2_0 blocks made at load, which the series picks.
func printQ2_0(q *advise.Q2_0Result) {
	fmt.Fprintf(stdout, "Q2_0 sources (fp16 scales per 64): both layouts run %s; the series' layout: q2_0 blocks (%s)\n", q.Kernel, q.RuleWhy)
	fmt.Fprintf(stdout, "  bytes per 32 weights: native %.3f, Q2_0 blocks %.3f\n", q.Bytes32.Native, q.Bytes32.Blocks)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "threads\tnative ms (min-max)\tQ2_0 blocks ms (min-max)\tnative / blocks\trounds\twinner\trule\t")
	for _, t := range q.Threads {
		winner := "q2_0 blocks"
		if t.Verdict.Winner == advise.LayoutNative {
			winner = "native"
		}
		agree := "agrees"
		if !t.Agrees {
			agree = "DISAGREES: GGML_BITCOS_LAYOUT=native runs faster here"
			if !t.Verdict.Clear {
				agree = "DISAGREES (within the rounds' noise)"
			}
		}
		fmt.Fprintf(tw, "%d\t%.2f (%.2f-%.2f)\t%.2f (%.2f-%.2f)\t%.2fx\t%d\t%s +%.0f%%\tq2_0 blocks %s\t\n", t.Threads,
			t.NativeMs.Median, t.NativeMs.Min, t.NativeMs.Max, t.BlocksMs.Median, t.BlocksMs.Min, t.BlocksMs.Max,
			1/t.Verdict.Ratio, t.NativeMs.N, winner, 100*t.Verdict.Margin, agree)
	}
	tw.Flush()
}

// roleNames names a kernel's roles for people: "native layout", "tq2_0
// layout", "TQ2_0 file", joined with " = " (one kernel, two roles).
func roleNames(roles []string) string {
	names := map[string]string{advise.RoleNative: "native layout", advise.RoleTQ2Layout: "tq2_0 layout", advise.RoleFile: "TQ2_0 file"}
	var ns []string
	for _, r := range roles {
		ns = append(ns, names[r])
	}
	return strings.Join(ns, " = ")
}
