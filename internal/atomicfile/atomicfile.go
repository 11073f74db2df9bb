// Package atomicfile is the project's one way to write an output file: a
// reader never sees a half-written file, and an interrupted run leaves
// nothing behind.
//
// Create makes the file's content anonymous while it is written: on Linux
// an O_TMPFILE inode in the target's directory, which has no name until
// Commit links it (so not even SIGKILL or a power loss can leave one); on
// other systems, or filesystems without O_TMPFILE, a hidden temporary named
// .<target>.tmp-p<pid>-<random> beside the target. Commit syncs the data,
// gives it the target's name with one rename (atomically replacing an older
// file; for a file made by CreateNew a hard link, which fails on an
// existing one) and syncs the directory. Abort removes everything. Check
// says before any work whether a target may be written at all (check.go). CommitAll
// commits several files (a shard set) as one: all are complete and synced
// before the first gets its name, and a failure removes them all.
//
// Named temporaries survive only a SIGKILL or a crash: the next Create in
// the same directory removes those whose process is gone (Stale), and
// HandleInterrupts removes the live ones on SIGINT and SIGTERM.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// File is an output being written. Use it as an *os.File, then Commit or
// Abort (Abort after Commit does nothing, so `defer f.Abort()` is safe).
type File struct {
	*os.File
	target string
	named  string // the temporary's name; "" for an anonymous (O_TMPFILE) file
	perm   os.FileMode
	// exclusive: Commit never replaces a file at target (CreateNew)
	exclusive bool
	mu        sync.Mutex
	done      bool
}

// forceNamed makes Create use named temporaries (tests of that path).
var forceNamed = false

var errNamedForced = errors.New("named temporaries forced")

// UseNamedTemporaries makes Create use named temporaries, as on systems
// without O_TMPFILE, until restore is called: other packages' tests check
// with it that a failed run leaves no temporary behind (an anonymous file
// would vanish whatever the code did). Not safe for parallel tests.
func UseNamedTemporaries() (restore func()) {
	old := forceNamed
	forceNamed = true
	return func() { forceNamed = old }
}

// BeforeCommit, if set, is called by Commit before it touches the target:
// tests interrupt a program there, with its output complete but unnamed.
var BeforeCommit func(target string)

// Logf receives the messages of the stale-file cleanup (nil: silent).
var Logf func(format string, args ...any)

// Create starts writing target. perm is the mode the committed file gets.
// Commit replaces a file at target: callers decide that first (Check).
func Create(target string, perm os.FileMode) (*File, error) {
	return create(target, perm, false)
}

// CreateNew is Create for an output that must not replace anything: its
// Commit fails, removing the output, when a file has appeared at target
// since Check found none.
func CreateNew(target string, perm os.FileMode) (*File, error) {
	return create(target, perm, true)
}

func create(target string, perm os.FileMode, exclusive bool) (*File, error) {
	dir := filepath.Dir(target)
	RemoveStale(dir)
	f := &File{target: target, perm: perm, exclusive: exclusive}
	// An anonymous file's errors name the target, a named one's the
	// temporary (what bare strips where this package reports them).
	fh, err := openAnonymous(dir, target)
	if err == nil && forceNamed {
		fh.Close()
		err = errNamedForced
	}
	if err == nil {
		f.File = fh
	} else {
		fh, err := createNamed(dir, filepath.Base(target))
		if err != nil {
			return nil, fmt.Errorf("%s: cannot create the output: %w", target, bare(err))
		}
		f.File, f.named = fh, fh.Name()
	}
	track(f)
	return f, nil
}

// Target is the path the file gets on Commit.
func (f *File) Target() string { return f.target }

// ReadPath is a path through which the content written so far can be
// opened for reading before Commit.
func (f *File) ReadPath() string {
	if f.named != "" {
		return f.named
	}
	return procPath(f.File)
}

// Commit makes the written content appear under the target name: fsync the
// data, link or rename, fsync the directory.
func (f *File) Commit() error { return CommitAll(f) }

// CommitAll makes the content of files appear under their target names as
// one set, as far as a file system allows: first every file is synced and
// given a hidden name beside its target (the slow part), then all are
// renamed to their targets one after the other, then their directories are
// synced. If any step before the last rename fails, every file of the set
// is removed, the targets already renamed included (older files they
// replaced are gone), and none is committed. An interrupt (Cleanup) that
// arrives during CommitAll waits for it: the set is then complete. Only a
// SIGKILL or a crash between the first and the last rename can leave part
// of a set under its names (the hidden names of the rest are removed by a
// later Create in the directory, RemoveStale). A failure to sync a
// directory after the renames is reported with the files in place.
func CommitAll(files ...*File) error {
	if BeforeCommit != nil {
		for _, f := range files {
			BeforeCommit(f.target)
		}
	}
	for _, f := range files {
		f.mu.Lock()
		defer f.mu.Unlock()
	}
	fail := func(f *File, err error) error {
		for _, g := range files {
			g.abortLocked()
		}
		return fmt.Errorf("%s: %w", f.target, bare(err))
	}
	for _, f := range files {
		if f.done {
			return fail(f, errors.New("output already committed or aborted"))
		}
	}
	for _, f := range files {
		if err := f.prepare(); err != nil {
			return fail(f, err)
		}
	}
	for i, f := range files {
		if err := f.name(); err != nil {
			for _, g := range files[:i] {
				os.Remove(g.target)
			}
			return fail(f, err)
		}
		f.named = ""
	}
	for _, f := range files {
		f.done = true
		untrack(f)
	}
	synced := map[string]bool{}
	for _, f := range files {
		dir := filepath.Dir(f.target)
		if synced[dir] {
			continue
		}
		synced[dir] = true
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("%s: %w", f.target, err)
		}
	}
	return nil
}

// prepare readies f for its rename: mode set, data synced, a hidden name
// (the temporary's own, or one given to an anonymous file), closed.
func (f *File) prepare() error {
	if err := f.File.Chmod(f.perm); err != nil && f.named == "" {
		return err // a named temporary keeps 0600 where chmod is not supported
	}
	if err := f.File.Sync(); err != nil {
		return err
	}
	if f.named == "" {
		// An anonymous file gets a hidden name first (linkat fails on an
		// existing target), which the rename then replaces the target with.
		name := tempName(filepath.Dir(f.target), filepath.Base(f.target))
		if err := linkAnonymous(f.File, name); err != nil {
			return err
		}
		f.named = name
	}
	return f.File.Close()
}

// name gives the prepared file its target's name: a rename, or for an
// exclusive file a hard link (which fails on an existing target) and the
// removal of the hidden name; where the file system has no hard links, a
// rename after a last look.
func (f *File) name() error {
	if !f.exclusive {
		return os.Rename(f.named, f.target)
	}
	err := os.Link(f.named, f.target)
	if err == nil {
		os.Remove(f.named)
		return nil
	}
	if _, lerr := os.Lstat(f.target); lerr == nil {
		return errors.New("a file appeared there while the output was written; not replaced")
	}
	if errors.Is(err, fs.ErrExist) {
		return bare(err)
	}
	return os.Rename(f.named, f.target)
}

// Abort discards the output. It is safe to call more than once and after
// Commit.
func (f *File) Abort() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.abortLocked()
}

func (f *File) abortLocked() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	if f.named != "" {
		os.Remove(f.named)
	}
	untrack(f)
}

// tempPattern matches the names of this package's temporaries: the target
// name, the pid of the process writing it, a random part.
var tempPattern = regexp.MustCompile(`^\..+\.tmp-p(\d+)-[0-9a-z]+$`)

func tempName(dir, base string) string {
	return filepath.Join(dir, fmt.Sprintf(".%s.tmp-p%d-%s", base, os.Getpid(), strconv.FormatUint(rand.Uint64(), 36)))
}

func createNamed(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		fh, err := os.OpenFile(tempName(dir, base), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) || try == 10 {
			return fh, err
		}
	}
}

// RemoveStale removes the temporaries in dir that a process of this program
// left when it was killed: those whose process no longer runs. Temporaries
// of the legacy form (.<name>.tmp-<digits>, before the pid was recorded)
// are removed once they are a day old.
func RemoveStale(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		stale := false
		if m := tempPattern.FindStringSubmatch(name); m != nil {
			pid, err := strconv.Atoi(m[1])
			stale = err == nil && pid != os.Getpid() && !processAlive(pid)
		} else if legacyPattern.MatchString(name) {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
				stale = true
			}
		}
		if !stale {
			continue
		}
		p := filepath.Join(dir, name)
		if err := os.RemoveAll(p); err == nil && Logf != nil {
			Logf("removed %s, left by an interrupted run", p)
		}
	}
}

var legacyPattern = regexp.MustCompile(`^\..+\.(tmp-\d+|gguf-bitcos-join-\d+)$|^\.gguf-bitcos-join-\d+$|^\.modelgen-\d+$`)
