package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Exit statuses (README, and `gguf-bitcos --help`).
const (
	exitOK     = 0
	exitError  = 1 // a runtime error: bad input, I/O
	exitDiffer = 2 // verify: the files differ
	exitParity = 3 // ppl: parity fails
	// verify: the second file is not a BITCOS repack of the first (no
	// bitcos.* metadata, the arguments swapped, or the first one BITCOS too)
	exitNotRepack = 4
	exitUsage     = 64 // EX_USAGE: the command line is wrong
	exitInternal  = 70 // EX_SOFTWARE: a bug in gguf-bitcos
	// 130 and 143: interrupted by SIGINT / SIGTERM (atomicfile.HandleInterrupts)
)

const exitHelp = `Exit status: 0 success; 1 error (bad input, I/O); 2 verify found differences;
3 ppl parity fails; 4 verify: REPACKED is not a BITCOS repack of ORIGINAL (no
bitcos.* metadata, or the arguments swapped); 64 usage error; 70 internal
error (a bug: please report it);
130/143 interrupted by SIGINT/SIGTERM (no output is left behind).`

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
