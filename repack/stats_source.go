package repack

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
)

// stats reads its input from a local GGUF (mapped), a GGUF at
// an http(s) URL (httprange: range requests, resumed when cut), or a
// safetensors master, local or remote (stats_safetensors.go). Every non-local
// input is served to ggufx as one io.ReaderAt, so Stats itself does not
// know where the bytes come from.

// SourceInfo describes an input that is not a GGUF file.
type SourceInfo struct {
	Format string   `json:"format"` // "safetensors"
	Files  []string `json:"files"`
	Bytes  int64    `json:"bytes"` // all files
	// Config is the config.json read for the architecture, if any.
	Config string `json:"config,omitempty"`
	// Omitted lists tensors a GGUF cannot hold (dtype, rank), not counted.
	Omitted []string `json:"omitted,omitempty"`
}

// RemoteStats is the HTTP traffic of a run.
type RemoteStats struct {
	Files        int   `json:"files"`
	Requests     int64 `json:"requests"`
	BytesFetched int64 `json:"bytes_fetched"`
	Resumes      int64 `json:"resumes"`
	// HeaderBytes approximates the response headers received on top.
	HeaderBytes int64 `json:"response_header_bytes"`
	// FetchedShare is BytesFetched over the remote files' total size.
	FetchedShare float64 `json:"fetched_share"`
}

// statsSource owns what openStats opened.
type statsSource struct {
	opt     *StatsOptions
	closers []func()
	remote  []*httprange.Reader
	info    *SourceInfo
}

// IsURL reports whether name is read over HTTP.
func IsURL(name string) bool { return httprange.IsURL(name) }

func (s *statsSource) close() {
	for _, c := range s.closers {
		c()
	}
}

// openAt opens a local file or URL as an io.ReaderAt and its size.
func (s *statsSource) openAt(name string) (io.ReaderAt, int64, error) {
	if IsURL(name) {
		r, err := httprange.Open(context.Background(), name, s.opt.HTTP)
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
func (s *statsSource) openGGUF(name string) (*ggufx.File, error) {
	r, size, err := s.openAt(name)
	if err != nil {
		return nil, err
	}
	return ggufx.Parse(r, size, name)
}

// sibling is the file name next to base (a path or URL).
func sibling(base, name string) string {
	if IsURL(base) {
		if i := strings.LastIndexByte(base, '/'); i >= 0 {
			return base[:i+1] + name
		}
	}
	return path.Join(path.Dir(base), name)
}

// openStats opens path for Stats.
func openStats(name string, opt *StatsOptions) (*input, *statsSource, error) {
	src := &statsSource{opt: opt}
	in, err := src.open(name)
	if err != nil {
		src.close()
		return nil, nil, err
	}
	return in, src, nil
}

func (s *statsSource) open(name string) (*input, error) {
	if safetensors.IsSafetensors(name) {
		s.opt.Ternarize = true
		return s.openSafetensors(name)
	}
	if !IsURL(name) {
		in, done, err := openJoined(name)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, done)
		return in, nil
	}
	f, err := s.openGGUF(name)
	if err != nil {
		return nil, err
	}
	paths, err := ggufsplit.Set(f)
	if err != nil {
		return nil, err
	}
	if paths != nil { // the shard URLs follow the first one's name
		joined, closeShards, err := ggufsplit.Join(paths, name, s.openGGUF)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, closeShards)
		f = joined
	}
	in := &input{File: f}
	if in.meta, err = bitcos.Validate(f); err != nil {
		return nil, err
	}
	return in, nil
}

// finish adds what the source knows to the report: HTTP traffic, the
// safetensors files, the sampled run's total interval.
func (s *statsSource) finish(fs *FileStats, ivs []*ZInterval) {
	fs.Source = s.info
	if len(s.remote) > 0 {
		r := &RemoteStats{Files: len(s.remote)}
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
		fs.Remote = r
	}
	if s.opt.Sample > 0 {
		fs.Sampled = totalInterval(fs, ivs, s.opt)
	}
}

// totalInterval is the stratified interval of the model's z (stats_sample.go).
func totalInterval(fs *FileStats, ivs []*ZInterval, opt *StatsOptions) *SampleSummary {
	sum := &SampleSummary{BlocksPerTensor: opt.Sample, Seed: opt.Seed, Confidence: 0.95, ZLow: fs.Total.Z, ZHigh: fs.Total.Z}
	var v float64
	for j, iv := range ivs {
		w := float64(fs.Tensors[j].Weights) / float64(fs.Total.Weights)
		v += w * w * iv.se * iv.se
		sum.BytesRead += iv.bytes
	}
	h := 1.959963984540054 * math.Sqrt(v)
	sum.ZLow, sum.ZHigh = max(fs.Total.Z-h, 0), min(fs.Total.Z+h, 1)
	return sum
}

// exactInterval describes a tensor read whole in a sampled run.
func exactInterval(f *input, i int, z float64, master bool) *ZInterval {
	t := f.Tensors[i]
	uw, _ := sampleUnit(t, master)
	m := int64(0)
	if uw > 0 {
		m = int64(t.Elements()) / int64(uw)
	}
	read := int64(t.Size)
	if t.Type == ggufx.TypeBITCOS { // the whole family was read
		base := bitcos.CompanionBase(t.Name)
		for _, c := range []string{bitcos.SuffixSigns, bitcos.SuffixRows, bitcos.SuffixScales} {
			if j, ok := f.Tensor(base + c); ok {
				read += int64(f.Tensors[j].Size)
			}
		}
	}
	return &ZInterval{Low: z, High: z, Blocks: m, Of: m, Unit: uw, Method: "exact", bytes: read}
}

// storedGroup is the scale group of BITCOS tensor i as its scales
// companion stores it (0: one f32 per tensor).
func storedGroup(f *input, i int) int {
	t := f.Tensors[i]
	j, ok := f.Tensor(bitcos.CompanionBase(t.Name) + bitcos.SuffixScales)
	if !ok || f.Tensors[j].Type == ggufx.TypeF32 || f.Tensors[j].Dims[0] == 0 {
		return 0
	}
	return int(t.Dims[0] / f.Tensors[j].Dims[0])
}

// String is a one-line account of the traffic, for the CLI.
func (r *RemoteStats) String() string {
	return fmt.Sprintf("fetched %d bytes (%.3f%% of %d file(s)) in %d requests (%d resumed) plus about %d bytes of response headers",
		r.BytesFetched, 100*r.FetchedShare, r.Files, r.Requests, r.Resumes, r.HeaderBytes)
}
