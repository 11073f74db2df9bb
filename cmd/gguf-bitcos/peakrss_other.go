//go:build !unix

package main

import "os"

// peakRSS: Windows (and the other non-unix systems) report no peak resident
// set for an exited child through os.ProcessState.
func peakRSS(ps *os.ProcessState) (int64, bool) { return 0, false }
