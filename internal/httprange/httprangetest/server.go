// Package httprangetest serves a directory over HTTP on 127.0.0.1 only,
// with range support and injected faults (responses cut after a byte count,
// ranges ignored), for the tests of remote reading.
package httprangetest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Options are the server's faults; the zero value is a well-behaved server.
type Options struct {
	// CutAfter > 0 ends every response's body after that many bytes by
	// dropping the connection (the client sees a short body).
	CutAfter int64
	// NoRanges answers every request with the whole file (200).
	NoRanges bool
	// FailFirst answers the first FailFirst requests with 503.
	FailFirst int64
}

// Server is a running test server.
type Server struct {
	*httptest.Server
	opt      Options
	requests atomic.Int64
	sent     atomic.Int64
}

// Serve starts a server of dir on 127.0.0.1 (httptest's loopback
// listener) and stops it when the test ends.
func Serve(t testing.TB, dir string, opt Options) *Server {
	s := &Server{opt: opt}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n := s.requests.Add(1); n <= opt.FailFirst {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if opt.NoRanges {
			r.Header.Del("Range")
		}
		files.ServeHTTP(&cutter{ResponseWriter: w, s: s, left: opt.CutAfter}, r)
	}))
	if host := s.Listener.Addr().String(); !strings.HasPrefix(host, "127.0.0.1:") && !strings.HasPrefix(host, "[::1]:") {
		s.Close()
		t.Fatalf("test server listens on %s, not the loopback", host)
	}
	t.Cleanup(s.Close)
	return s
}

// URL of a file of the served directory.
func (s *Server) File(name string) string { return s.URL + "/" + name }

// Requests is the number of requests received.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Sent is the number of body bytes written.
func (s *Server) Sent() int64 { return s.sent.Load() }

type cutter struct {
	http.ResponseWriter
	s    *Server
	left int64 // 0: no cut
}

func (c *cutter) Write(p []byte) (int, error) {
	if c.s.opt.CutAfter <= 0 {
		n, err := c.ResponseWriter.Write(p)
		c.s.sent.Add(int64(n))
		return n, err
	}
	cut := int64(len(p)) > c.left
	if cut {
		p = p[:c.left]
	}
	n, err := c.ResponseWriter.Write(p)
	c.left -= int64(n)
	c.s.sent.Add(int64(n))
	if cut {
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // drops the connection mid-body
	}
	return n, err
}
