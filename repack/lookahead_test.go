package repack

import (
	"path/filepath"
	"testing"
	"time"
)

// TestKeptCandidatesReturnTheirBudget: a candidate the data pass keeps in
// its type returns its share of the look-ahead budget once written, like an
// encoded one; else a model with more kept candidates than the budget holds
// stops forever. tiny-tq1_0 keeps most candidates (BITCOS is not smaller),
// and a one-byte budget admits one tensor at a time.
func TestKeptCandidatesReturnTheirBudget(t *testing.T) {
	old := lookAheadBytes
	lookAheadBytes = 1
	defer func() { lookAheadBytes = old }()
	in := filepath.Join("..", "testdata", "tiny-tq1_0.gguf")
	for _, split := range []SplitOptions{{}, {MaxTensors: 5}} {
		done := make(chan error, 1)
		var rep *Report
		go func() {
			var err error
			rep, err = Repack(in, Options{Output: filepath.Join(t.TempDir(), "o.gguf"), Force: true, Workers: 2, Split: split})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("split %+v: repack did not finish: the look-ahead budget was not returned", split)
		}
		if rep.Kept < 2 {
			t.Fatalf("split %+v: only %d kept: the fixture no longer exercises the kept path", split, rep.Kept)
		}
	}
}
