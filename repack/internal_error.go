package repack

import (
	"fmt"
	"runtime/debug"
)

// InternalError is a panic caught on a worker goroutine, where the
// command's own recover cannot see it: a bug in gguf-bitcos, not in the
// input (the command exits 70).
type InternalError struct {
	File, Tensor string
	Value        any
	Stack        []byte
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error (a bug in gguf-bitcos; please report it with this message) on %s, tensor %q: %v\n%s", e.File, e.Tensor, e.Value, e.Stack)
}

// recoverPiece turns a panic of the encoding of tensor i into the piece's
// error; deferred by every encoding worker.
func recoverPiece(f *input, i int, pc *piece) {
	if r := recover(); r != nil {
		*pc = piece{idx: i, err: &InternalError{File: f.Path, Tensor: f.Tensors[i].Name, Value: r, Stack: debug.Stack()}}
	}
}
