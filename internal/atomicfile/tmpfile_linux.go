package atomicfile

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openAnonymous opens an unnamed file in dir (O_TMPFILE): it disappears
// with the process unless linkAnonymous gives it a name. name is what the
// *os.File calls itself in errors.
func openAnonymous(dir, name string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDWR|unix.O_TMPFILE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func procPath(f *os.File) string { return fmt.Sprintf("/proc/self/fd/%d", f.Fd()) }

// linkAnonymous names an O_TMPFILE file (linkat through /proc, which needs
// no privilege, unlike AT_EMPTY_PATH).
func linkAnonymous(f *os.File, name string) error {
	return unix.Linkat(unix.AT_FDCWD, procPath(f), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
}
