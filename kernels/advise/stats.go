package advise

import "slices"

// Summary is a set of repeated measurements: the median is the figure, the
// minimum and maximum show the noise.
type Summary struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// Summarize returns the summary of xs (not modified); zero for none.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Summary{Min: s[0], Median: median(s), Max: s[len(s)-1], N: len(s)}
}

// median of xs (not modified): the middle value, or the mean of the two
// middle ones; 0 for none.
func median(xs []float64) float64 {
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

// scale returns the summary with every figure multiplied by f (f > 0).
func (s Summary) scale(f float64) Summary {
	return Summary{Min: s.Min * f, Median: s.Median * f, Max: s.Max * f, N: s.N}
}
