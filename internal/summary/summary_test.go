package summary

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want Summary
	}{
		{nil, Summary{}},
		{[]float64{3}, Summary{Min: 3, Median: 3, Max: 3, N: 1}},
		{[]float64{3, 1, 2}, Summary{Min: 1, Median: 2, Max: 3, N: 3}},
		{[]float64{4, 1, 2, 3}, Summary{Min: 1, Median: 2.5, Max: 4, N: 4}},
	} {
		in := slices.Clone(tc.xs)
		if got := Of(tc.xs); got != tc.want || !slices.Equal(in, tc.xs) {
			t.Errorf("Of(%v) = %+v, want %+v (input unchanged)", in, got, tc.want)
		}
	}
}
