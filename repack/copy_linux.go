//go:build linux

package repack

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// copyRange copies n bytes at offset off of src to dst's current position
// inside the kernel (copy_file_range: no copy through user memory, and a
// reflink on file systems that have them), as Go's io.Copy and coreutils' cp
// do for plain copies. It reports done=false, without having written
// anything, when the kernel cannot do it for these files.
func copyRange(dst, src *os.File, off, n int64) (done bool, err error) {
	first := true
	for n > 0 {
		m, err := unix.CopyFileRange(int(src.Fd()), &off, int(dst.Fd()), nil, int(min(n, 1<<30)), 0)
		if err != nil {
			if first && (errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EXDEV) ||
				errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EBADF)) {
				return false, nil
			}
			return true, err
		}
		if m == 0 {
			return true, errors.New("copy_file_range: unexpected end of input")
		}
		first = false
		n -= int64(m)
	}
	return true, nil
}
