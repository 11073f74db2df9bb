package advise

import (
	"slices"
	"testing"
	"time"
)

func durationNs(n int64) time.Duration { return time.Duration(n) }

func TestParseThreads(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"1", []int{1}}, {"3", []int{1, 2, 3}}, {"1,2,4", []int{1, 2, 4}}, {" 2 , 8", []int{2, 8}},
		{"0", nil}, {"2,1", nil}, {"1,1", nil}, {"x", nil}, {"", nil}, {"1,", nil}, {"2000", nil},
	} {
		got, err := ParseThreads(tc.in)
		if !slices.Equal(got, tc.want) || (err == nil) != (tc.want != nil) {
			t.Errorf("ParseThreads(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseShape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shape
		ok   bool
	}{
		{"2560x6912", Shape{2560, 6912}, true}, {"256X1", Shape{256, 1}, true},
		{"100x10", Shape{}, false}, {"2560", Shape{}, false}, {"0x5", Shape{}, false}, {"256x0", Shape{}, false},
		{"256x-1", Shape{}, false}, {"x", Shape{}, false}, {"65536x131072", Shape{}, false},
	} {
		got, err := ParseShape(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseShape(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
