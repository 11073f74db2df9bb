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
	root.Version = version()
	root.SetVersionTemplate("gguf-bitcos {{.Version}}")
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
	root.AddCommand(repackCmd(), statsCmd(), verifyCmd(), unpackCmd(), cardCmd(), pplCmd(), genCmd(), benchCmd(), adviseCmd())
	var addExitHelp func(c *cobra.Command)
	addExitHelp = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Long != "" {
				sub.Long += "\n\n" + exitHelp
			}
			addExitHelp(sub)
		}
	}
	addExitHelp(root)
	return root
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
