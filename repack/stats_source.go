package repack

import (
	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/internal/httprange"
	"github.com/gguf-bitcos/gguf-bitcos/internal/source"
	"github.com/gguf-bitcos/gguf-bitcos/safetensors"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// stats reads its input from a local GGUF (mapped, a shard set joined:
// openJoined), or through internal/source: a GGUF at an http(s) URL, or a
// safetensors master, local or remote. Every input is served to ggufx as
// one file, so Stats itself does not know where the bytes come from.

// statsSource owns what openStats opened.
type statsSource struct {
	opt     *StatsOptions
	closers []func()       // a local GGUF's
	src     *source.Source // URLs and safetensors
}

func (s *statsSource) close() {
	for _, c := range s.closers {
		c()
	}
	s.src.Close()
}

// openStats opens path for Stats.
func openStats(name string, opt *StatsOptions) (*input, *statsSource, error) {
	src := &statsSource{opt: opt, src: source.New(opt.HTTP)}
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
		f, err := s.src.Safetensors(name)
		if err != nil {
			return nil, err
		}
		return &input{File: f}, nil
	}
	if !httprange.IsURL(name) {
		in, done, err := openJoined(name)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, done)
		return in, nil
	}
	f, err := s.src.GGUF(name)
	if err != nil {
		return nil, err
	}
	in := &input{File: f}
	if in.meta, err = bitcos.Validate(f); err != nil {
		return nil, err
	}
	return in, nil
}

// finish adds what the source knows to the report: HTTP traffic, the
// safetensors files, the sampled run's total interval.
func (s *statsSource) finish(fs *stats.FileStats, ivs []*stats.ZInterval) {
	fs.Source = s.src.Info()
	fs.Remote = s.src.Traffic()
	if s.opt.Sample > 0 {
		fs.Sampled = stats.TotalInterval(fs, ivs, s.opt.Sample, s.opt.Seed)
	}
}
