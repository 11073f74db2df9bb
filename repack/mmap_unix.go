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

// releasePages drops the whole pages inside data[start:end] from this
// process's resident set (MADV_DONTNEED on a shared read-only file mapping
// only unmaps them: the data is untouched and faults back in on access).
func releasePages(data []byte, start, end uint64) {
	ps := uint64(os.Getpagesize())
	start = (start + ps - 1) / ps * ps
	end = end / ps * ps
	if start < end && end <= uint64(len(data)) {
		syscall.Madvise(data[start:end], syscall.MADV_DONTNEED)
	}
}
