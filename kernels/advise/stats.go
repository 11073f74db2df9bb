package advise

import "github.com/gguf-bitcos/gguf-bitcos/internal/summary"

// Summary is a set of repeated measurements (internal/summary): the median
// is the figure, the minimum and maximum show the noise.
type Summary = summary.Summary

// Summarize returns the summary of xs (not modified); zero for none.
func Summarize(xs []float64) Summary { return summary.Of(xs) }

// median of xs (not modified); 0 for none.
func median(xs []float64) float64 { return summary.Median(xs) }
