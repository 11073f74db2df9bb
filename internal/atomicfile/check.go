package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ExistsError is Check's refusal to replace an existing file without
// being asked to.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return e.Path + ": already exists; not replaced (--force replaces it)"
}

// Check says, before any work is done, whether target can be written as an
// output, naming target (the path the user gave) in every refusal:
//
//   - target is none of inputs, through any spelling (symbolic or hard
//     links, relative paths: os.SameFile), even with replace;
//   - target is not a folder or a device, and does not exist unless
//     replace;
//   - its folder exists, is a folder, and a file can be created there (no
//     permission and a read-only file system are found here, by creating an
//     unnamed file and dropping it).
func Check(target string, replace bool, inputs ...string) error {
	if target == "" {
		return errors.New("the output path is empty")
	}
	st, err := os.Stat(target)
	switch {
	case err == nil:
		for _, in := range inputs {
			if si, err := os.Stat(in); err == nil && os.SameFile(st, si) {
				if in == target {
					return fmt.Errorf("%s: the output would be the input; give another output path", target)
				}
				return fmt.Errorf("%s: is the input %s (another name for the same file); give another output path", target, in)
			}
		}
		if st.IsDir() {
			return fmt.Errorf("%s: is a folder; give the output a file name (for example %s)", target,
				filepath.Join(target, "out.gguf"))
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: is not a regular file (%v); not replaced", target, st.Mode().Type())
		}
		if !replace {
			return &ExistsError{target}
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(target); lerr == nil && !replace {
			return &ExistsError{target} // a symbolic link to nothing
		}
	case errors.Is(err, syscall.ENOTDIR):
		// handled with the folder below
	default:
		return fmt.Errorf("%s: %w", target, bare(err))
	}
	return checkDir(target, filepath.Dir(target))
}

// CheckFolder says whether files can be created in the existing folder
// dir, naming dir in a refusal.
func CheckFolder(dir string) error { return checkDir(dir, dir) }

// checkDir says whether files can be created in folder dir, for target
// (which errors name; dir too, where it is not target).
func checkDir(target, dir string) error {
	the := "the folder " + dir
	if target == dir {
		the = "the folder"
	}
	ds, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %s does not exist", target, the)
	case errors.Is(err, syscall.ENOTDIR) || (err == nil && !ds.IsDir()):
		if target == dir {
			return fmt.Errorf("%s: is not a folder", target)
		}
		return fmt.Errorf("%s: %s is not a folder", target, dir)
	case err != nil:
		return fmt.Errorf("%s: %s: %w", target, the, bare(err))
	}
	fh, err := openAnonymous(dir, target)
	if err == nil {
		fh.Close()
		return nil
	}
	if !deniedErr(err) {
		// No anonymous files here: a named temporary, as Create would make.
		fh, err = createNamed(dir, filepath.Base(target))
		if err == nil {
			fh.Close()
			os.Remove(fh.Name())
			return nil
		}
	}
	return dirError(target, the, err)
}

// dirError names what stops files being created in folder the ("the folder
// X"), for target.
func dirError(target, the string, err error) error {
	switch {
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%s: %s is on a read-only file system", target, the)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s: no permission to create files in %s", target, the)
	}
	return fmt.Errorf("%s: cannot create files in %s: %w", target, the, bare(err))
}

// deniedErr is an error that a named temporary would meet too.
func deniedErr(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// bare strips the path from a file-system error: errors about an output
// name its target, never the hidden temporary the user did not ask for.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
