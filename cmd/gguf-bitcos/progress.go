package main

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// phaseBars draws repack's progress (repack.Options.Progress) on stderr:
// one bar per phase in that phase's bytes (the data pass: the input's
// size), and for the flush to disk, which cannot be measured as it goes, a
// spinner that turns until the output has its name. stop ends it.
func phaseBars() (progress func(phase string, done, total int64), stop func()) {
	var (
		mu    sync.Mutex
		bar   *progressbar.ProgressBar
		name  string
		spins chan struct{}
	)
	endSpinner := func() {
		if spins != nil {
			close(spins)
			spins = nil
		}
	}
	progress = func(phase string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if phase != name {
			if bar != nil {
				endSpinner()
				bar.Finish()
			}
			name, bar = phase, nil
			switch {
			case phase == "done":
				return
			case total < 0:
				bar = progressbar.NewOptions64(-1, progressbar.OptionSetDescription(phase+": writing to disk and reading back"),
					progressbar.OptionSetWriter(os.Stderr), progressbar.OptionSpinnerType(14), progressbar.OptionThrottle(65*time.Millisecond),
					progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionOnCompletion(func() { fmt.Fprintln(os.Stderr) }))
				spins = make(chan struct{})
				go spin(bar, spins)
				return
			default:
				bar = progressbar.DefaultBytes(total, phase)
			}
		}
		if bar != nil && total >= 0 {
			bar.Set64(done)
		}
	}
	stop = func() {
		mu.Lock()
		defer mu.Unlock()
		endSpinner()
		if bar != nil {
			bar.Finish()
		}
	}
	return progress, stop
}

// spin turns bar until stop is closed.
func spin(bar *progressbar.ProgressBar, stop chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			bar.Add(0)
		}
	}
}
