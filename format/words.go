package format

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian is true on hosts where a []uint64's memory is its
// little-endian byte serialization (every platform Go supports but a few
// big-endian ones).
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// bytesOfWords returns w as little-endian bytes: a view of w's memory on
// little-endian hosts (do not keep it past w), a copy elsewhere.
func bytesOfWords(w []uint64) []byte {
	if len(w) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 8*len(w))
	}
	b := make([]byte, 8*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return b
}

// wordsFromBytes fills w from little-endian bytes b (8*len(w) long).
func wordsFromBytes(w []uint64, b []byte) {
	if littleEndian {
		copy(bytesOfWords(w), b)
		return
	}
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
}
