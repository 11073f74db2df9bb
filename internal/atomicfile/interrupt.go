package atomicfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// The outputs not yet committed, and other cleanups to run on an
// interrupt (for example a directory a command created).
var (
	liveMu   sync.Mutex
	live     = map[*File]struct{}{}
	cleanups = map[int]func(){}
	nextID   int
)

func track(f *File) {
	liveMu.Lock()
	live[f] = struct{}{}
	liveMu.Unlock()
}

func untrack(f *File) {
	liveMu.Lock()
	delete(live, f)
	liveMu.Unlock()
}

// OnInterrupt registers fn to run if the process is interrupted before the
// returned cancel is called.
func OnInterrupt(fn func()) (cancel func()) {
	liveMu.Lock()
	defer liveMu.Unlock()
	id := nextID
	nextID++
	cleanups[id] = fn
	return func() {
		liveMu.Lock()
		delete(cleanups, id)
		liveMu.Unlock()
	}
}

// Cleanup aborts every output not yet committed and runs the registered
// cleanups: what an interrupted run must not leave behind.
func Cleanup() {
	liveMu.Lock()
	files := make([]*File, 0, len(live))
	for f := range live {
		files = append(files, f)
	}
	fns := make([]func(), 0, len(cleanups))
	for _, fn := range cleanups {
		fns = append(fns, fn)
	}
	clear(cleanups)
	liveMu.Unlock()
	for _, f := range files {
		f.Abort()
	}
	for _, fn := range fns {
		fn()
	}
}

var handleOnce sync.Once

// HandleInterrupts makes SIGINT and SIGTERM run Cleanup, call note (if not
// nil) and exit with status 128 + the signal's number, as a shell reports a
// process killed by it.
func HandleInterrupts(note func(os.Signal)) {
	handleOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			sig := <-ch
			Cleanup()
			if note != nil {
				note(sig)
			}
			code := 130
			if sig == syscall.SIGTERM {
				code = 143
			}
			os.Exit(code)
		}()
	})
}
