package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
)

func benchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks measured side by side on this machine",
	}
	var runs int
	var asJSON bool
	rp := &cobra.Command{
		Use:   "repack MODEL.gguf",
		Short: "repack throughput against a plain copy of the same file, and peak RSS",
		Long: `Alternates a plain copy (read, write, fsync: what repack must also do) and a
repack of MODEL in a child process, RUNS times each, into a hidden folder beside MODEL,
and reports the best times, their ratio and the repack's peak RSS against the
goal of 256 MiB + the largest tensor.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := benchRepack(args[0], runs)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(stdout, r)
			}
			r.print()
			return nil
		},
	}
	rp.Flags().IntVar(&runs, "runs", 3, "runs of each")
	rp.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	cmd.AddCommand(rp, benchLlamaCmd())
	return cmd
}

func benchRepack(in string, runs int) (*benchResult, error) {
	f, err := ggufx.Open(in)
	if err != nil {
		return nil, err
	}
	var largest uint64
	for _, t := range f.Tensors {
		largest = max(largest, t.Size)
	}
	size := f.FileSize
	f.Close()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// A folder of its own beside MODEL (the same disk): no file of the
	// user's is in the way of the copies, nor of repack's refusal to
	// replace one.
	dir, err := os.MkdirTemp(filepath.Dir(in), ".bench-")
	if err != nil {
		return nil, err
	}
	cp := filepath.Join(dir, "copy.gguf")
	rpOut := filepath.Join(dir, "repack.gguf")
	defer os.RemoveAll(dir)
	cancel := atomicfile.OnInterrupt(func() { os.RemoveAll(dir) })
	defer cancel()
	var copies, repacks []time.Duration
	var rss int64
	rssKnown := true
	for r := 0; r < runs; r++ {
		t0 := time.Now()
		if err := copyFile(in, cp); err != nil {
			return nil, err
		}
		copies = append(copies, time.Since(t0))
		os.Remove(cp)

		c := exec.Command(self, "repack", "-q", "-o", rpOut, in)
		c.Stderr = os.Stderr
		t0 = time.Now()
		if err := c.Run(); err != nil {
			return nil, fmt.Errorf("repack: %w", err)
		}
		repacks = append(repacks, time.Since(t0))
		r, ok := peakRSS(c.ProcessState)
		rss, rssKnown = max(rss, r), rssKnown && ok
		os.Remove(rpOut)
	}
	slices.Sort(copies)
	slices.Sort(repacks)
	r := &benchResult{File: in, FileBytes: size, LargestTensor: int64(largest), Runs: runs, RSSGoal: int64(256<<20) + int64(largest)}
	for i := range copies {
		r.CopySeconds = append(r.CopySeconds, copies[i].Seconds())
		r.RepackSeconds = append(r.RepackSeconds, repacks[i].Seconds())
	}
	med := func(d []float64) float64 { return d[len(d)/2] }
	r.SpeedMedian = med(r.CopySeconds) / med(r.RepackSeconds)
	r.SpeedBest = r.CopySeconds[0] / r.RepackSeconds[0]
	if rssKnown {
		r.PeakRSS = rss
	}
	return r, nil
}

// copyFile is the baseline: a plain copy as Go's io.Copy (and coreutils' cp)
// does it, in-kernel with copy_file_range where the system has it, then an
// fsync, as repack does.
func copyFile(in, out string) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(out)
	if err != nil {
		return err
	}
	defer dst.Close()
	if _, err := io.Copy(dst, src); err != nil {
		return err
	}
	return dst.Sync()
}
