//go:build !unix

package repack

import "errors"

func mapFile(path string, size int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile(b []byte) {}

func releasePages(data []byte, start, end uint64) {}
