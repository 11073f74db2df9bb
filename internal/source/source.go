// Package source opens the models stats reads that are not a local GGUF
// file: a GGUF at an http(s) URL (httprange: range requests, resumed when
// cut; a shard set through its first shard's URL), and a safetensors
// master, local or remote (safetensors.go). Each is served to ggufx as one
// io.ReaderAt, so stats does not know where the bytes come from. A Source
// keeps what it opened until Close, the HTTP traffic (Traffic) and what a
// checkpoint held (Info).
package source

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
)

// Info describes an input that is not a GGUF file.
type Info struct {
	Format string   `json:"format"` // "safetensors"
	Files  []string `json:"files"`
	Bytes  int64    `json:"bytes"` // all files
	// Config is the config.json read for the architecture, if any.
	Config string `json:"config,omitempty"`
	// Omitted lists tensors a GGUF cannot hold (dtype, rank), not counted.
	Omitted []string `json:"omitted,omitempty"`
}

// Traffic is the HTTP traffic of a run.
type Traffic struct {
	Files        int   `json:"files"`
	Requests     int64 `json:"requests"`
	BytesFetched int64 `json:"bytes_fetched"`
	Resumes      int64 `json:"resumes"`
	// HeaderBytes approximates the response headers received on top.
	HeaderBytes int64 `json:"response_header_bytes"`
	// FetchedShare is BytesFetched over the remote files' total size.
	FetchedShare float64 `json:"fetched_share"`
}

// Source opens models and owns what it opened.
type Source struct {
	http    httprange.Options
	closers []func()
	remote  []*httprange.Reader
	info    *Info
}

// New is a Source whose HTTP reads use opt.
func New(opt httprange.Options) *Source { return &Source{http: opt} }

// Close closes what s opened.
func (s *Source) Close() {
	for _, c := range s.closers {
		c()
	}
}

// GGUF opens the GGUF file at the URL name, or the shard set whose first
// shard it is, as one file (the shard URLs follow the first one's name).
func (s *Source) GGUF(name string) (*ggufx.File, error) {
	f, err := s.openGGUF(name)
	if err != nil {
		return nil, err
	}
	paths, err := ggufsplit.Set(f)
	if err != nil {
		return nil, err
	}
	if paths != nil {
		joined, closeShards, err := ggufsplit.Join(paths, name, s.openGGUF)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, closeShards)
		f = joined
	}
	return f, nil
}

// Info describes the safetensors checkpoint s opened, or is nil.
func (s *Source) Info() *Info { return s.info }

// Traffic is the HTTP traffic of what s opened, or nil when nothing was
// read over HTTP.
func (s *Source) Traffic() *Traffic {
	if len(s.remote) == 0 {
		return nil
	}
	r := &Traffic{Files: len(s.remote)}
	var size int64
	for _, x := range s.remote {
		st := x.Stats()
		r.Requests += st.Requests
		r.BytesFetched += st.BytesFetched
		r.Resumes += st.Resumes
		r.HeaderBytes += st.HeaderBytes
		size += x.Size()
	}
	if size > 0 {
		r.FetchedShare = float64(r.BytesFetched) / float64(size)
	}
	return r
}

// openAt opens a local file or URL as an io.ReaderAt and its size.
func (s *Source) openAt(name string) (io.ReaderAt, int64, error) {
	if httprange.IsURL(name) {
		r, err := httprange.Open(context.Background(), name, s.http)
		if err != nil {
			return nil, 0, err
		}
		s.remote = append(s.remote, r)
		return r, r.Size(), nil
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	s.closers = append(s.closers, func() { fh.Close() })
	st, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	return fh, st.Size(), nil
}

// openGGUF parses the GGUF header of a local file or URL.
func (s *Source) openGGUF(name string) (*ggufx.File, error) {
	r, size, err := s.openAt(name)
	if err != nil {
		return nil, err
	}
	return ggufx.Parse(r, size, name)
}

// sibling is the file name next to base (a path or URL).
func sibling(base, name string) string {
	if httprange.IsURL(base) {
		if i := strings.LastIndexByte(base, '/'); i >= 0 {
			return base[:i+1] + name
		}
	}
	return path.Join(path.Dir(base), name)
}

// String is a one-line account of the traffic, for the CLI.
func (r *Traffic) String() string {
	return fmt.Sprintf("fetched %d bytes (%.3f%% of %d file(s)) in %d requests (%d resumed) plus about %d bytes of response headers",
		r.BytesFetched, 100*r.FetchedShare, r.Files, r.Requests, r.Resumes, r.HeaderBytes)
}
