// Command gguf-bitcos stores ternary GGUF weights as BITCOS (a presence
// bitmap plus compacted signs) losslessly, and proves it.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// Exit statuses (README, and `gguf-bitcos --help`).
const (
	exitOK       = 0
	exitError    = 1  // a runtime error: bad input, I/O
	exitDiffer   = 2  // verify: the files differ
	exitParity   = 3  // ppl: parity fails
	exitUsage    = 64 // EX_USAGE: the command line is wrong
	exitInternal = 70 // EX_SOFTWARE: a bug in gguf-bitcos
	// 130 and 143: interrupted by SIGINT / SIGTERM (atomicfile.HandleInterrupts)
)

const exitHelp = `Exit status: 0 success; 1 error (bad input, I/O); 2 verify found differences;
3 ppl parity fails; 64 usage error; 70 internal error (a bug: please report it);
130/143 interrupted by SIGINT/SIGTERM (no output is left behind).`

func main() {
	atomicfile.Logf = func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "gguf-bitcos: "+format+"\n", args...)
	}
	atomicfile.HandleInterrupts(func(sig os.Signal) {
		fmt.Fprintf(os.Stderr, "gguf-bitcos: interrupted (%v); unfinished outputs removed\n", sig)
	})
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, outW, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			atomicfile.Cleanup()
			fmt.Fprintf(stderr, "gguf-bitcos: internal error (a bug in gguf-bitcos; please report it with this message): %v\n%s", r, debug.Stack())
			code = exitInternal
		}
	}()
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(outW)
	root.SetErr(stderr)
	stdout = outW
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "gguf-bitcos:", err)
	var ee exitErr
	var ue usageError
	var ie *repack.InternalError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "Usage: %s\nRun '%s --help' for more.\n", ue.cmd.UseLine(), ue.cmd.CommandPath())
		return exitUsage
	case strings.HasPrefix(err.Error(), "unknown command"):
		fmt.Fprintf(stderr, "Usage: %s\n", root.UseLine())
		return exitUsage
	case errors.As(err, &ie):
		return exitInternal
	}
	return exitError
}

// stdout is where commands print their results (run sets it).
var stdout io.Writer = os.Stdout

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "gguf-bitcos",
		Short:         "Store ternary GGUF weights below 1.58 bits, losslessly",
		Long:          "Store ternary GGUF weights below 1.58 bits, losslessly.\n\n" + exitHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{cmd, err} })
	var cpuprofile string
	root.PersistentFlags().StringVar(&cpuprofile, "cpuprofile", "", "write a CPU profile to this file")
	root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		if cpuprofile == "" {
			return nil
		}
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		return pprof.StartCPUProfile(f)
	}
	root.PersistentPostRun = func(cmd *cobra.Command, args []string) {
		if cpuprofile != "" {
			pprof.StopCPUProfile()
		}
	}
	root.AddCommand(repackCmd(), statsCmd(), verifyCmd(), unpackCmd(), cardCmd(), pplCmd(), genCmd(), benchCmd())
	for _, c := range root.Commands() {
		if c.Long != "" {
			c.Long += "\n\n" + exitHelp
		}
	}
	return root
}

// exitErr carries a specific exit status.
type exitErr struct {
	code int
	msg  string
}

func (e exitErr) Error() string { return e.msg }

// usageError is a wrong command line: exit 64 with the usage line.
type usageError struct {
	cmd *cobra.Command
	err error
}

func (e usageError) Error() string { return e.err.Error() }

func (e usageError) Unwrap() error { return e.err }

// usagef reports a wrong command line of cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return usageError{cmd, fmt.Errorf(format, args...)}
}

// exactArgs and rangeArgs are cobra's, as usage errors.
func exactArgs(n int) cobra.PositionalArgs { return asUsage(cobra.ExactArgs(n)) }

func rangeArgs(lo, hi int) cobra.PositionalArgs { return asUsage(cobra.RangeArgs(lo, hi)) }

func asUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{cmd, err}
		}
		return nil
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func human(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
