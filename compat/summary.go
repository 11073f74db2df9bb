// Package compat holds the checks of this project's files against other
// implementations of GGUF, and the metadata summaries that come from them.
package compat

import (
	"fmt"

	parser "github.com/gpustack/gguf-parser-go"
)

// Summary is gguf-parser-go's view of a file: an independent reading of
// its header, used for metadata summaries and as a cross-check. It is only
// available for files gguf-parser-go can read: it rejects I2_S (type 36,
// which it sizes as IQ4_NL_4_4) and BITCOS (an id it does not know), and it
// trims whitespace from strings, so it is never used to rewrite a file
// (DESIGN §3).
type Summary struct {
	Architecture  string  `json:"architecture"`
	Name          string  `json:"name,omitempty"`
	FileType      string  `json:"file_type"`
	Parameters    uint64  `json:"parameters"`
	BitsPerWeight float64 `json:"bits_per_weight"`
	Tensors       uint64  `json:"tensors"`
	DataOffset    int64   `json:"data_offset"`
}

// Summarize reads path with gguf-parser-go.
func Summarize(path string) (*Summary, error) {
	gf, err := parser.ParseGGUFFile(path)
	if err != nil {
		return nil, fmt.Errorf("gguf-parser-go cannot read %s: %w", path, err)
	}
	m := gf.Metadata()
	return &Summary{
		Architecture:  m.Architecture,
		Name:          m.Name,
		FileType:      m.FileTypeDescriptor,
		Parameters:    uint64(m.Parameters),
		BitsPerWeight: float64(m.BitsPerWeight),
		Tensors:       gf.Header.TensorCount,
		DataOffset:    gf.TensorDataStartOffset,
	}, nil
}
