package advise

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseThreads reads --threads: "N" is every count from 1 to N, "a,b,c"
// exactly those (ascending, no repeats).
func ParseThreads(s string) ([]int, error) {
	parts := strings.Split(s, ",")
	var ts []int
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 1024 {
			return nil, fmt.Errorf("--threads %q: want N (1..N) or a list like 1,2,4 of counts in 1..1024", s)
		}
		if len(ts) > 0 && n <= ts[len(ts)-1] {
			return nil, fmt.Errorf("--threads %q: list the counts in ascending order, once each", s)
		}
		ts = append(ts, n)
	}
	if len(ts) == 1 {
		n := ts[0]
		ts = ts[:0]
		for t := 1; t <= n; t++ {
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// ParseShape reads --shape KxROWS (row length first, as ggml's ne0 x ne1).
func ParseShape(s string) (Shape, error) {
	k, r, ok := strings.Cut(strings.ToLower(s), "x")
	kn, err1 := strconv.Atoi(k)
	rn, err2 := strconv.Atoi(r)
	if !ok || err1 != nil || err2 != nil || kn <= 0 || kn%256 != 0 || rn <= 0 || int64(kn)*int64(rn) > 1<<32 {
		return Shape{}, fmt.Errorf("--shape %q: want KxROWS, K a multiple of 256 (e.g. 2560x6912)", s)
	}
	return Shape{K: kn, Rows: rn}, nil
}
