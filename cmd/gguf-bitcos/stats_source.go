package main

import (
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// zText is a tensor's z, with its 95% interval when it was sampled.
func zText(t stats.TensorStats) string {
	iv := t.ZInterval
	if iv == nil || iv.Method == "exact" {
		return fmt.Sprintf("%.4f", t.Z)
	}
	return fmt.Sprintf("%.4f [%.4f,%.4f]", t.Z, iv.Low, iv.High)
}

// printSource prints what stats knows of a safetensors master, of the HTTP
// traffic and of a sampled run.
func printSource(fs *stats.FileStats) {
	if s := fs.Source; s != nil {
		fmt.Fprintf(stdout, "%s master: %s, %s; projections ternarized with the absmean rule, sizes as a GGUF of the same tensors\n",
			s.Format, units.Count(len(s.Files), "file"), units.Bytes(s.Bytes))
		for _, o := range s.Omitted {
			fmt.Fprintf(stdout, "  omitted (no GGUF type or rank > 4): %s\n", o)
		}
	}
	if s := fs.Sampled; s != nil {
		fmt.Fprintf(stdout, "sampled: %d blocks per tensor (seed %d), %s of tensor data read; total z = %.4f, 95%% interval [%.4f, %.4f]\n",
			s.BlocksPerTensor, s.Seed, units.Bytes(s.BytesRead), fs.Total.Z, s.ZLow, s.ZHigh)
		fmt.Fprintln(stdout, "  layouts and sizes assume every row holds the estimated share of non-zeros; zero rows and dead neurons are not measured")
	}
	if r := fs.Remote; r != nil {
		fmt.Fprintf(stdout, "remote: %s\n", r)
	}
}
