package httprange_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange/httprangetest"
)

// file writes n random bytes as dir/name and returns them.
func file(t *testing.T, dir, name string, n int) []byte {
	b := make([]byte, n)
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

var fast = httprange.Options{Backoff: time.Millisecond}

func TestReadAt(t *testing.T) {
	dir := t.TempDir()
	const size = 3<<20 + 12345
	want := file(t, dir, "f.bin", size)
	for _, cut := range []int64{0, 1 << 20, 100 << 10} {
		srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: cut})
		r, err := httprange.Open(context.Background(), srv.File("f.bin"), fast)
		if err != nil {
			t.Fatal(err)
		}
		if r.Size() != size {
			t.Fatalf("cut %d: size %d, want %d", cut, r.Size(), size)
		}
		for _, c := range []struct {
			off, n  int
			wantN   int
			wantEOF bool
		}{
			{0, 10, 10, false},
			{5, 3 << 20, 3 << 20, false},
			{size - 7, 7, 7, false},
			{size - 7, 20, 7, true},
			{size, 1, 0, true},
			{size + 100, 1, 0, true},
			{123, 0, 0, false},
			{1 << 20, 1, 1, false},
		} {
			p := make([]byte, c.n)
			n, err := r.ReadAt(p, int64(c.off))
			if n != c.wantN || (err == io.EOF) != c.wantEOF || (err != nil && err != io.EOF) {
				t.Fatalf("cut %d: ReadAt(%d bytes at %d) = %d, %v; want %d, EOF %v", cut, c.n, c.off, n, err, c.wantN, c.wantEOF)
			}
			if n > 0 && !bytes.Equal(p[:n], want[c.off:c.off+n]) {
				t.Fatalf("cut %d: ReadAt(%d bytes at %d): wrong bytes", cut, c.n, c.off)
			}
		}
		st := r.Stats()
		if cut > 0 && st.Resumes < (3<<20)/cut-1 {
			t.Errorf("cut %d: %d resumes for a 3 MiB read", cut, st.Resumes)
		}
		if cut == 0 && st.Resumes != 0 {
			t.Errorf("no cuts, but %d resumes", st.Resumes)
		}
		if st.BytesFetched != srv.Sent() {
			t.Errorf("cut %d: counted %d bytes, the server sent %d", cut, st.BytesFetched, srv.Sent())
		}
	}
}

// A header parsed through a bufio.Reader costs few requests and no bytes
// beyond the file; scattered small reads cost their own bytes only.
func TestReadAhead(t *testing.T) {
	dir := t.TempDir()
	const size = 5 << 20
	want := file(t, dir, "f.bin", size)
	srv := httprangetest.Serve(t, dir, httprangetest.Options{})
	r, err := httprange.Open(context.Background(), srv.File("f.bin"), fast)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<16))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("sequential read: %v, equal %v", err, bytes.Equal(got, want))
	}
	st := r.Stats()
	if st.Requests > 10 || st.BytesFetched != size+1 {
		t.Errorf("sequential 5 MiB in 64 KiB reads: %d requests, %d bytes fetched; want <= 10 and %d", st.Requests, st.BytesFetched, size+1)
	}

	r, err = httprange.Open(context.Background(), srv.File("f.bin"), fast)
	if err != nil {
		t.Fatal(err)
	}
	var asked int64 = 1
	for off := int64(1000); off+66 < size; off += 66 * 5000 {
		for _, o := range []int64{off, off + 66} { // adjacent blocks too
			p := make([]byte, 66)
			if _, err := r.ReadAt(p, o); err != nil || !bytes.Equal(p, want[o:o+66]) {
				t.Fatalf("block at %d: %v", o, err)
			}
			asked += 66
		}
	}
	if st := r.Stats(); st.BytesFetched != asked {
		t.Errorf("scattered blocks: fetched %d bytes, asked %d", st.BytesFetched, asked)
	}
}

func TestFaults(t *testing.T) {
	dir := t.TempDir()
	file(t, dir, "f.bin", 1000)
	file(t, dir, "empty.bin", 0)
	for _, c := range []struct {
		name    string
		opt     httprangetest.Options
		file    string
		wantErr string
	}{
		{"no ranges", httprangetest.Options{NoRanges: true}, "f.bin", "ignores range requests"},
		{"missing", httprangetest.Options{}, "nope.bin", "404"},
		{"busy then fine", httprangetest.Options{FailFirst: 3}, "f.bin", ""},
		{"busy for good", httprangetest.Options{FailFirst: 1000}, "f.bin", "attempts in a row brought no data"},
		{"one byte per response", httprangetest.Options{CutAfter: 1}, "f.bin", ""},
		{"empty", httprangetest.Options{}, "empty.bin", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httprangetest.Serve(t, dir, c.opt)
			r, err := httprange.Open(context.Background(), srv.File(c.file), fast)
			if err == nil && r.Size() > 0 {
				p := make([]byte, r.Size())
				_, err = r.ReadAt(p, 0)
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

// A file replaced on the server between reads is an error, not a mix.
func TestChangedFile(t *testing.T) {
	dir := t.TempDir()
	file(t, dir, "f.bin", 1000)
	srv := httprangetest.Serve(t, dir, httprangetest.Options{})
	r, err := httprange.Open(context.Background(), srv.File("f.bin"), fast)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		when time.Time
	}{{1000, time.Now().Add(time.Hour)}, {2000, time.Now().Add(2 * time.Hour)}} {
		p := filepath.Join(dir, "f.bin")
		if err := os.WriteFile(p, bytes.Repeat([]byte{1}, c.n), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, c.when, c.when)
		if _, err := r.ReadAt(make([]byte, 10), 500); err == nil || !strings.Contains(err.Error(), "changed on the server") {
			t.Fatalf("%d bytes: error %v, want a changed file", c.n, err)
		}
	}
}

// Concurrent reads (sampled blocks in flight together, a sequential reader
// beside them) each get their own bytes, on a server that cuts responses.
func TestConcurrentReads(t *testing.T) {
	dir := t.TempDir()
	const size = 2 << 20
	want := file(t, dir, "f.bin", size)
	srv := httprangetest.Serve(t, dir, httprangetest.Options{CutAfter: 50 << 10})
	r, err := httprange.Open(context.Background(), srv.File("f.bin"), fast)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 17)
	for g := range 16 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 20 {
				n := 1 + rng.IntN(200<<10)
				off := rng.IntN(size - n)
				p := make([]byte, n)
				if _, err := r.ReadAt(p, int64(off)); err != nil || !bytes.Equal(p, want[off:off+n]) {
					errs <- fmt.Errorf("%d bytes at %d: %v", n, off, err)
					return
				}
			}
			errs <- nil
		}()
	}
	go func() {
		got, err := io.ReadAll(bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 1<<16))
		if err == nil && !bytes.Equal(got, want) {
			err = fmt.Errorf("sequential read: wrong bytes")
		}
		errs <- err
	}()
	for range 17 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestHeaderBytes(t *testing.T) {
	dir := t.TempDir()
	file(t, dir, "f.bin", 100)
	srv := httprangetest.Serve(t, dir, httprangetest.Options{})
	r, err := httprange.Open(context.Background(), srv.File("f.bin"), fast)
	if err != nil {
		t.Fatal(err)
	}
	// Go's file server answers a range with Accept-Ranges, Content-Length,
	// Content-Range, Content-Type, Date and Last-Modified: 150-300 bytes.
	if h := r.Stats().HeaderBytes; h < 150 || h > 300 {
		t.Fatalf("one response: %d header bytes", h)
	}
}

// Answers that do not match the request are errors, not data.
func TestBadAnswers(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		cr     string
		want   string
	}{
		{"other start", 206, "bytes 5-5/100", "the server sent from 5"},
		{"no content-range", 206, "", "without a byte Content-Range"},
		{"no total", 206, "bytes 0-0/*", "a total is required"},
		{"garbage", 206, "bytes x-y/z", "malformed"},
		{"not satisfiable", 416, "bytes */100", "416"},
		{"forbidden", 403, "", "403"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.cr != "" {
					w.Header().Set("Content-Range", c.cr)
				}
				w.WriteHeader(c.status)
				w.Write([]byte{1})
			}))
			defer srv.Close()
			_, err := httprange.Open(context.Background(), srv.URL+"/f", fast)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
