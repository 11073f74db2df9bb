// Command gguf-bitcos stores ternary GGUF weights as BITCOS (a presence
// bitmap plus compacted signs) losslessly, and proves it.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run executes the command line args and returns the exit status: 0, 2 when
// verify found differences, 1 for any other error.
func run(args []string, outW, stderr io.Writer) int {
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(outW)
	root.SetErr(stderr)
	stdout = outW
	if err := root.Execute(); err != nil {
		fmt.Fprintln(stderr, "gguf-bitcos:", err)
		if e, ok := err.(exitError); ok {
			return e.code
		}
		return 1
	}
	return 0
}

// stdout is where commands print their results (run sets it).
var stdout io.Writer = os.Stdout

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "gguf-bitcos",
		Short:         "Store ternary GGUF weights below 1.58 bits, losslessly",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
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
	return root
}

// exitError carries a specific exit code.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

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
