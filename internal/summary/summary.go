// Package summary holds the figure of repeated measurements that advise
// and the llama-bench ratio benchmark report: the median, with the minimum
// and maximum as the noise.
package summary

import "slices"

// Summary is a set of repeated measurements: the median is the figure, the
// minimum and maximum show the noise.
type Summary struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// Of returns the summary of xs (not modified); zero for none.
func Of(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Summary{Min: s[0], Median: Median(s), Max: s[len(s)-1], N: len(s)}
}

// Median of xs (not modified): the middle value, or the mean of the two
// middle ones; 0 for none.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
