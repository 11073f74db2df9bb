package main

import (
	"fmt"
	"runtime"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
)

// benchResult is what bench repack measured.
type benchResult struct {
	File          string    `json:"file"`
	FileBytes     int64     `json:"file_bytes"`
	LargestTensor int64     `json:"largest_tensor_bytes"`
	Runs          int       `json:"runs"`
	CopySeconds   []float64 `json:"copy_seconds"`   // sorted
	RepackSeconds []float64 `json:"repack_seconds"` // sorted
	SpeedMedian   float64   `json:"repack_over_copy_speed_median"`
	SpeedBest     float64   `json:"repack_over_copy_speed_best"`
	PeakRSS       int64     `json:"repack_peak_rss_bytes,omitempty"` // 0: not reported here
	RSSGoal       int64     `json:"repack_peak_rss_goal_bytes"`
}

func (r *benchResult) print() {
	med := func(d []float64) float64 { return d[len(d)/2] }
	mb := float64(r.FileBytes) / 1e6
	fmt.Fprintf(stdout, "file %s (%s), largest tensor %s, %d alternating runs each\n", r.File, units.Bytes(r.FileBytes), units.Bytes(r.LargestTensor), r.Runs)
	fmt.Fprintf(stdout, "         best     median   MB/s (median)\n")
	fmt.Fprintf(stdout, "copy   %7.3fs  %7.3fs  %7.1f\n", r.CopySeconds[0], med(r.CopySeconds), mb/med(r.CopySeconds))
	fmt.Fprintf(stdout, "repack %7.3fs  %7.3fs  %7.1f\n", r.RepackSeconds[0], med(r.RepackSeconds), mb/med(r.RepackSeconds))
	fmt.Fprintf(stdout, "repack speed / copy speed: %.2fx (medians), %.2fx (best); goal >= 0.80x\n", r.SpeedMedian, r.SpeedBest)
	if r.PeakRSS == 0 {
		fmt.Fprintf(stdout, "repack peak RSS not reported on %s (goal <= 256 MiB + largest tensor = %s)\n", runtime.GOOS, units.Bytes(r.RSSGoal))
		return
	}
	fmt.Fprintf(stdout, "repack peak RSS %s (goal <= 256 MiB + largest tensor = %s)\n", units.Bytes(r.PeakRSS), units.Bytes(r.RSSGoal))
}
