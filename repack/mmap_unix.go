//go:build unix

package repack

import (
	"os"

	"golang.org/x/sys/unix"
)

// The standard library's syscall package has no Madvise on darwin or
// freebsd; golang.org/x/sys/unix has Mmap, Munmap and Madvise on every unix
// Go builds for.

func mapFile(path string, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, unix.EFBIG
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) { unix.Munmap(b) }

// releasePages drops the whole pages inside data[start:end] from this
// process's resident set. On Linux, MADV_DONTNEED on a shared read-only file
// mapping only unmaps them: the data is untouched and faults back in on
// access. Elsewhere it is a hint the kernel may ignore; either way the data
// read is the same.
func releasePages(data []byte, start, end uint64) {
	ps := uint64(os.Getpagesize())
	start = (start + ps - 1) / ps * ps
	end = end / ps * ps
	if start < end && end <= uint64(len(data)) {
		unix.Madvise(data[start:end], unix.MADV_DONTNEED)
	}
}
