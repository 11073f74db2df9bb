//go:build unix

package repack

import (
	"os"
	"syscall"
)

func mapFile(path string, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, syscall.EFBIG
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(b []byte) { syscall.Munmap(b) }
