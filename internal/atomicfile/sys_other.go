//go:build !unix

package atomicfile

// syncDir: directories cannot be synced here; the rename is as durable as
// the system makes it.
func syncDir(dir string) error { return nil }

// processAlive cannot be asked portably: a temporary counts as live (it is
// removed once a day old only if it has the legacy form).
func processAlive(pid int) bool { return true }
