//go:build unix

package repack_test

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// removeStaleFuzzDirs removes the scratch directories of fuzz workers that
// were stopped before their TestMain could (the fuzzer kills them).
func removeStaleFuzzDirs(base string) {
	ents, _ := os.ReadDir(cmp.Or(base, os.TempDir()))
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "gguf-bitcos-fuzz-%d", &pid); err == nil && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.RemoveAll(filepath.Join(cmp.Or(base, os.TempDir()), e.Name()))
		}
	}
}
