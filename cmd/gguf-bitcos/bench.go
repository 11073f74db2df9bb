package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
)

func benchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks measured side by side on this machine",
	}
	var runs int
	rp := &cobra.Command{
		Use:   "repack MODEL.gguf",
		Short: "repack throughput against a plain copy of the same file, and peak RSS",
		Long: `Alternates a plain copy (read, write, fsync: what repack must also do) and a
repack of MODEL in a child process, RUNS times each, into MODEL's directory,
and reports the best times, their ratio and the repack's peak RSS against the
goal of 256 MiB + the largest tensor.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return benchRepack(args[0], runs)
		},
	}
	rp.Flags().IntVar(&runs, "runs", 3, "runs of each")
	cmd.AddCommand(rp)
	return cmd
}

func benchRepack(in string, runs int) error {
	f, err := ggufx.Open(in)
	if err != nil {
		return err
	}
	var largest uint64
	for _, t := range f.Tensors {
		largest = max(largest, t.Size)
	}
	size := f.FileSize
	f.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dir := filepath.Dir(in)
	cp := filepath.Join(dir, ".bench-copy.gguf")
	rpOut := filepath.Join(dir, ".bench-repack.gguf")
	defer os.Remove(cp)
	defer os.Remove(rpOut)
	var copies, repacks []time.Duration
	var rss int64
	for r := 0; r < runs; r++ {
		t0 := time.Now()
		if err := copyFile(in, cp); err != nil {
			return err
		}
		copies = append(copies, time.Since(t0))
		os.Remove(cp)

		c := exec.Command(self, "repack", "-q", "-o", rpOut, in)
		c.Stderr = os.Stderr
		t0 = time.Now()
		if err := c.Run(); err != nil {
			return fmt.Errorf("repack: %w", err)
		}
		repacks = append(repacks, time.Since(t0))
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = max(rss, ru.Maxrss*1024)
		}
		os.Remove(rpOut)
	}
	mb := float64(size) / 1e6
	slices.Sort(copies)
	slices.Sort(repacks)
	med := func(d []time.Duration) time.Duration { return d[len(d)/2] }
	fmt.Fprintf(stdout, "file %s (%s), largest tensor %s, %d alternating runs each\n", in, units.Bytes(size), units.Bytes(int64(largest)), runs)
	fmt.Fprintf(stdout, "         best     median   MB/s (median)\n")
	fmt.Fprintf(stdout, "copy   %7.3fs  %7.3fs  %7.1f\n", copies[0].Seconds(), med(copies).Seconds(), mb/med(copies).Seconds())
	fmt.Fprintf(stdout, "repack %7.3fs  %7.3fs  %7.1f\n", repacks[0].Seconds(), med(repacks).Seconds(), mb/med(repacks).Seconds())
	fmt.Fprintf(stdout, "repack speed / copy speed: %.2fx (medians), %.2fx (best); goal >= 0.80x\n",
		med(copies).Seconds()/med(repacks).Seconds(), copies[0].Seconds()/repacks[0].Seconds())
	goal := int64(256<<20) + int64(largest)
	fmt.Fprintf(stdout, "repack peak RSS %s (goal <= 256 MiB + largest tensor = %s)\n", units.Bytes(rss), units.Bytes(goal))
	return nil
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
