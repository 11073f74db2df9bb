package repack

import "testing"

func TestParseSplitSize(t *testing.T) {
	for s, want := range map[string]int64{"500M": 500e6, "2G": 2e9, "1m": 1e6} {
		if got, err := ParseSplitSize(s); err != nil || got != want {
			t.Errorf("%s: %d %v", s, got, err)
		}
	}
	for _, s := range []string{"", "5", "0M", "-1G", "5K", "xM"} {
		if _, err := ParseSplitSize(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
