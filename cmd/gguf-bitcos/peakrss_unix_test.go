//go:build unix

package main

import (
	"os/exec"
	"testing"
)

// TestPeakRSS: a shell's peak resident set is read in bytes (between 256 KiB
// and 256 MiB, so that a KiB count taken for bytes, or the reverse, fails).
func TestPeakRSS(t *testing.T) {
	c := exec.Command("sh", "-c", "true")
	if err := c.Run(); err != nil {
		t.Skipf("no sh to run: %v", err)
	}
	rss, ok := peakRSS(c.ProcessState)
	if !ok {
		t.Skip("this system reports no peak RSS (Solaris, illumos)")
	}
	if rss < 256<<10 || rss > 256<<20 {
		t.Fatalf("peak RSS of sh is %d bytes", rss)
	}
	t.Logf("peak RSS of sh: %d KiB", rss>>10)
}
