//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

var errNoAnonymous = errors.New("no anonymous files on this system")

func openAnonymous(dir, name string) (*os.File, error) { return nil, errNoAnonymous }

func procPath(f *os.File) string { return f.Name() }

func linkAnonymous(f *os.File, name string) error { return errNoAnonymous }
