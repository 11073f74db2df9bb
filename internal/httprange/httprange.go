// Package httprange reads a remote file through HTTP range requests as an
// io.ReaderAt, so that a parser written for local files (ggufx.Parse, the
// safetensors header parser) reads a file on a web server without
// downloading it.
//
// A response cut short (a dropped connection, a proxy that limits response
// sizes) is resumed from the first byte not yet received, with a new range
// request; only consecutive attempts that bring no byte count against the
// retry limit. Every request carries If-Range with the validator the first
// response gave (ETag, else Last-Modified), and every answer's
// Content-Range total must equal the size first seen, so a file replaced on
// the server mid-read is an error rather than a silent mix of two files.
//
// Small reads that continue the previous one (a header parsed through a
// bufio.Reader) grow a read-ahead window, so a header costs a handful of
// requests rather than thousands; a read at a new place fetches only what it
// asks for (sampled blocks cost their own bytes, not a window each).
package httprange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxReadAhead = 1 << 20
	DefaultRetries      = 8
	minReadAhead        = 4 << 10 // smaller reads never trigger read-ahead
)

// Options tune a Reader; the zero value takes the defaults.
type Options struct {
	Client       *http.Client  // nil: a client with no overall timeout
	MaxReadAhead int           // largest read-ahead window, bytes
	Retries      int           // consecutive attempts without progress before giving up
	Backoff      time.Duration // wait before the first retry, doubled each time (0: 50 ms)
}

// Stats counts a Reader's traffic.
type Stats struct {
	Requests int64 `json:"requests"`
	// BytesFetched is every body byte received, read-ahead included.
	BytesFetched int64 `json:"bytes_fetched"`
	// Resumes counts requests that continued a cut response.
	Resumes int64 `json:"resumes"`
	// HeaderBytes approximates the response status lines and headers
	// received (as they would be written in HTTP/1.1): per-request
	// overhead that BytesFetched leaves out.
	HeaderBytes int64 `json:"response_header_bytes"`
}

// Reader is an io.ReaderAt over one URL. It is safe for concurrent use:
// reads that go straight to the caller's buffer (large or scattered ones)
// run in parallel, sequential reads through the read-ahead buffer one at a
// time.
type Reader struct {
	url       string
	size      int64
	validator string // ETag or Last-Modified of the first response
	opt       Options

	requests, fetched, resumes, headers atomic.Int64

	mu      sync.Mutex
	buf     []byte // read-ahead: bytes [bufOff, bufOff+len(buf))
	bufOff  int64
	lastEnd int64 // end of the previous ReadAt, for sequential detection
	window  int
}

// Open learns the size of the file at url with a one-byte range request and
// checks that the server honours ranges.
func Open(ctx context.Context, url string, opt Options) (*Reader, error) {
	if opt.Client == nil {
		opt.Client = &http.Client{}
	}
	if opt.MaxReadAhead <= 0 {
		opt.MaxReadAhead = DefaultMaxReadAhead
	}
	if opt.Retries <= 0 {
		opt.Retries = DefaultRetries
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 50 * time.Millisecond
	}
	r := &Reader{url: url, size: -1, opt: opt, lastEnd: -1}
	var one [1]byte
	if err := r.fetch(ctx, one[:], 0); err != nil {
		if errors.Is(err, errEmpty) {
			r.size = 0
			return r, nil
		}
		return nil, err
	}
	return r, nil
}

// Size is the file's size in bytes.
func (r *Reader) Size() int64 { return r.size }

// URL is the address read.
func (r *Reader) URL() string { return r.url }

// Stats returns the traffic so far.
func (r *Reader) Stats() Stats {
	return Stats{Requests: r.requests.Load(), BytesFetched: r.fetched.Load(), Resumes: r.resumes.Load(), HeaderBytes: r.headers.Load()}
}

// ReadAt reads len(p) bytes at off. Like os.File.ReadAt it returns io.EOF
// when the file ends before p is full.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", r.url, off)
	}
	if off >= r.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := p
	short := false
	if rest := r.size - off; int64(len(p)) > rest {
		want, short = p[:rest], true
	}
	r.mu.Lock()
	seq := len(p) >= minReadAhead && (off == r.lastEnd || (off == 0 && r.lastEnd < 0))
	n := r.fromBuf(want, off)
	r.lastEnd = off + int64(len(want))
	var err error
	if n < len(want) {
		err = r.fill(want[n:], off+int64(n), seq) // unlocks r.mu
	} else {
		r.mu.Unlock()
	}
	if err != nil {
		return n, err
	}
	if short {
		return len(want), io.EOF
	}
	return len(want), nil
}

// fromBuf copies what the read-ahead buffer holds of [off, off+len(p)) when
// it holds its start.
func (r *Reader) fromBuf(p []byte, off int64) int {
	if off < r.bufOff || off >= r.bufOff+int64(len(r.buf)) {
		return 0
	}
	return copy(p, r.buf[off-r.bufOff:])
}

// fill fetches [off, off+len(p)). A read of at least 4 KiB that continues
// the previous one (seq) and is smaller than the window fetches the window
// into the buffer; any other read goes straight into p (so adjacent sampled
// blocks do not each pull a window). It is called with r.mu held and
// releases it: at once for a direct read, after the fetch for a buffered
// one.
func (r *Reader) fill(p []byte, off int64, seq bool) error {
	ctx := context.Background()
	switch {
	case !seq:
		r.window = 0
	case r.window == 0:
		r.window = 64 << 10
	default:
		r.window = min(2*r.window, r.opt.MaxReadAhead)
	}
	if !seq || len(p) >= r.window {
		r.mu.Unlock()
		return r.fetch(ctx, p, off)
	}
	defer r.mu.Unlock()
	n := int64(r.window)
	if rest := r.size - off; n > rest {
		n = rest
	}
	if cap(r.buf) < int(n) {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	r.bufOff = off
	if err := r.fetch(ctx, r.buf, off); err != nil {
		r.buf = r.buf[:0]
		return err
	}
	copy(p, r.buf)
	return nil
}

var errEmpty = errors.New("empty file")

// fetch fills p with the bytes at off, resuming cut responses.
func (r *Reader) fetch(ctx context.Context, p []byte, off int64) error {
	got, failures := 0, 0
	wait := r.opt.Backoff
	for got < len(p) {
		if got > 0 || failures > 0 {
			r.resumes.Add(1)
		}
		n, err := r.get(ctx, p[got:], off+int64(got))
		got += n
		if err == nil {
			return nil
		}
		var perm *permanentError
		if errors.As(err, &perm) || errors.Is(err, errEmpty) {
			return err
		}
		if n > 0 { // progress: the retry budget starts again
			failures, wait = 0, r.opt.Backoff
			continue
		}
		if failures++; failures >= r.opt.Retries {
			return fmt.Errorf("%s: bytes %d-%d: %d attempts in a row brought no data: %w", r.url, off+int64(got), off+int64(len(p))-1, failures, err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait *= 2
	}
	return nil
}

// ErrNotFound is wrapped by the error for a 404 or 410 answer.
var ErrNotFound = errors.New("not found")

// permanentError is an answer that retrying will not change.
type permanentError struct {
	msg string
	err error
}

func (e *permanentError) Error() string { return e.msg }
func (e *permanentError) Unwrap() error { return e.err }

// get makes one range request for p at off and reads what arrives; a cut
// body returns the bytes read with an error.
func (r *Reader) get(ctx context.Context, p []byte, off int64) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return 0, &permanentError{msg: err.Error(), err: err}
	}
	end := off + int64(len(p)) - 1
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, end))
	req.Header.Set("Accept-Encoding", "identity")
	if r.validator != "" {
		req.Header.Set("If-Range", r.validator)
	}
	r.requests.Add(1)
	resp, err := r.opt.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	r.headers.Add(headerBytes(resp))
	switch {
	case resp.StatusCode == http.StatusPartialContent:
	case r.size < 0 && (resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && resp.Header.Get("Content-Range") == "bytes */0" ||
		resp.StatusCode == http.StatusOK && resp.ContentLength == 0):
		return 0, errEmpty // ranges of an empty file: 416, or 200 with nothing
	case resp.StatusCode == http.StatusOK && r.validator != "":
		return 0, &permanentError{msg: fmt.Sprintf("%s: the file changed on the server (If-Range %s no longer matches)", r.url, r.validator)}
	case resp.StatusCode == http.StatusOK:
		return 0, &permanentError{msg: fmt.Sprintf("%s: the server ignores range requests (200 for Range: bytes=%d-%d)", r.url, off, end)}
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return 0, fmt.Errorf("%s: %s", r.url, resp.Status)
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return 0, &permanentError{fmt.Sprintf("%s: %s", r.url, resp.Status), ErrNotFound}
	default:
		return 0, &permanentError{msg: fmt.Sprintf("%s: %s", r.url, resp.Status)}
	}
	start, total, err := contentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return 0, &permanentError{msg: fmt.Sprintf("%s: %v", r.url, err)}
	}
	if start != off {
		return 0, &permanentError{msg: fmt.Sprintf("%s: asked for bytes from %d, the server sent from %d", r.url, off, start)}
	}
	if r.size < 0 {
		r.size = total
		r.validator = resp.Header.Get("ETag")
		if r.validator == "" || strings.HasPrefix(r.validator, "W/") {
			r.validator = resp.Header.Get("Last-Modified")
		}
	} else if total != r.size {
		return 0, &permanentError{msg: fmt.Sprintf("%s: the file changed on the server (size %d, was %d)", r.url, total, r.size)}
	}
	if int64(len(p)) > total-off {
		p = p[:max(total-off, 0)]
	}
	n, err := io.ReadFull(resp.Body, p)
	r.fetched.Add(int64(n))
	if err != nil {
		return n, fmt.Errorf("%s: response cut after %d of %d bytes: %w", r.url, n, len(p), err)
	}
	return n, nil
}

// headerBytes is the size of resp's status line and headers in HTTP/1.1.
func headerBytes(resp *http.Response) int64 {
	n := int64(len(resp.Proto) + 1 + len(resp.Status) + 2 + 2)
	for k, vs := range resp.Header {
		for _, v := range vs {
			n += int64(len(k) + 2 + len(v) + 2)
		}
	}
	return n
}

// contentRange parses "bytes START-END/TOTAL".
func contentRange(h string) (start, total int64, err error) {
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, 0, fmt.Errorf("206 without a byte Content-Range (%q)", h)
	}
	span, tot, ok := strings.Cut(rest, "/")
	s, e, ok2 := strings.Cut(span, "-")
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("malformed Content-Range %q", h)
	}
	start, err1 := strconv.ParseInt(s, 10, 64)
	end, err2 := strconv.ParseInt(e, 10, 64)
	total, err3 := strconv.ParseInt(tot, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || start < 0 || end < start || total <= end {
		return 0, 0, fmt.Errorf("malformed Content-Range %q (a total is required)", h)
	}
	return start, total, nil
}

// IsURL reports whether name is an http or https address.
func IsURL(name string) bool {
	return strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://")
}
