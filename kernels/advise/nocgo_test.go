//go:build !cgo

package advise

import (
	"errors"
	"testing"
)

// TestNeedsCgo: without cgo, Run says so, and nothing else is reached.
func TestNeedsCgo(t *testing.T) {
	if _, err := Run(Options{}); !errors.Is(err, ErrNeedsCgo) {
		t.Fatalf("Run without cgo: %v", err)
	}
	if KernelNames() != nil {
		t.Fatal("kernel names without cgo")
	}
}
