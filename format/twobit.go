package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// Shared machinery of the stock layouts (TQ2_0, TQ1_0, Q2_0, I2_S): size and
// argument checks, and the word-level bit tricks that move 2-bit codes to and
// from Planes without a per-weight loop.
//
// The three 2-bit layouts use the same code for a weight: 0 -> -1, 1 -> 0,
// 2 -> +1 (3 is not ternary). With b1, b0 the two bits of a code:
//
//	present = b1 | ^b0   (codes 0, 2; code 3 also reads as present)
//	neg     = ^(b1 | b0) (code 0)
//	code 3  = b1 & b0
//
// and back, for a valid pair (neg implies present):
//
//	b1 = present &^ neg  (+1 -> 2)
//	b0 = ^present        ( 0 -> 1; -1 -> 0 has both bits clear)

const (
	lanes8  = 0x00ff00ff00ff00ff // low byte of every 16-bit lane
	lanes16 = 0x0000ffff0000ffff // 16-bit lanes 0 and 2
	bytes1  = 0x0101010101010101 // bit 0 of every byte
)

// stockSize is the byte size of rows rows of k weights stored in blocks of
// blockElems weights taking blockBytes bytes each, plus extra bytes for the
// whole tensor. ok is false when k is not a positive multiple of blockElems,
// rows is negative, or the size does not fit an int.
func stockSize(k, rows, blockElems, blockBytes, extra int) (size int, ok bool) {
	if k <= 0 || k%blockElems != 0 || rows < 0 {
		return 0, false
	}
	nb := k / blockElems
	if rows > 0 && nb > (math.MaxInt-extra)/blockBytes/rows {
		return 0, false
	}
	return nb*rows*blockBytes + extra, true
}

// checkDecode validates Decode's arguments and returns the number of blocks.
func checkDecode(name string, src []byte, k, rows, blockElems, blockBytes, extra int) (int, error) {
	size, ok := stockSize(k, rows, blockElems, blockBytes, extra)
	if !ok {
		return 0, fmt.Errorf("format: %s cannot hold %d rows of %d weights (row length must be a positive multiple of %d)",
			name, rows, k, blockElems)
	}
	if len(src) != size {
		return 0, fmt.Errorf("format: %s tensor of %d rows of %d weights is %d bytes, got %d",
			name, rows, k, size, len(src))
	}
	return k / blockElems * rows, nil
}

// checkEncode validates Encode's arguments and returns the number of blocks.
// group is the Scales.Group the layout stores (0: one f32 per tensor).
func checkEncode(name string, p *Planes, s *Scales, dst []byte, blockElems, blockBytes, extra, group int) (int, error) {
	k, rows := p.K, p.Rows
	size, ok := stockSize(k, rows, blockElems, blockBytes, extra)
	if !ok {
		return 0, fmt.Errorf("format: %s cannot hold %d rows of %d weights (row length must be a positive multiple of %d)",
			name, rows, k, blockElems)
	}
	if words := k / 64 * rows; len(p.Present) != words || len(p.Neg) != words {
		return 0, fmt.Errorf("format: %s: planes of %d x %d hold %d/%d words, want %d",
			name, rows, k, len(p.Present), len(p.Neg), words)
	}
	if s.Group != group {
		return 0, fmt.Errorf("format: %s stores scale group %d, got %d", name, group, s.Group)
	}
	if group > 0 {
		if n := k / group * rows; len(s.F16) != n {
			return 0, fmt.Errorf("format: %s: %d scales for %d x %d weights, want %d", name, len(s.F16), rows, k, n)
		}
	}
	if len(dst) != size {
		return 0, fmt.Errorf("format: %s tensor of %d rows of %d weights is %d bytes, dst has %d",
			name, rows, k, size, len(dst))
	}
	return k / blockElems * rows, nil
}

// resizeU16 returns buf with length n, reusing its storage when it can.
func resizeU16(buf []uint16, n int) []uint16 {
	if cap(buf) < n {
		return make([]uint16, n)
	}
	return buf[:n]
}

// notTernaryAt builds the error for the first code 3, at flat weight index f
// of a tensor of rows of k weights.
func notTernaryAt(f, k int) error {
	return &NotTernaryError{Row: f / k, Elem: f % k, Code: 3}
}

// transpose8x8 transposes the 8x8 bit matrix whose row i is byte i and whose
// column j is bit j: bit 8i+j moves to bit 8j+i. Three delta swaps exchange
// the off-diagonal 1x1, 2x2 and 4x4 sub-blocks (Hacker's Delight, 7-3). It is
// its own inverse.
func transpose8x8(x uint64) uint64 {
	t := (x ^ x>>7) & 0x00aa00aa00aa00aa
	x ^= t ^ t<<7
	t = (x ^ x>>14) & 0x0000cccc0000cccc
	x ^= t ^ t<<14
	t = (x ^ x>>28) & 0x00000000f0f0f0f0
	x ^= t ^ t<<28
	return x
}

// zip16 interleaves the 16-bit lanes of the low halves of x = [x0 x1] and
// y = [y0 y1] into [x0 y0 x1 y1] (lane 0 lowest).
func zip16(x, y uint64) uint64 {
	x &= 0xffffffff
	y &= 0xffffffff
	x = (x | x<<16) & lanes16
	y = (y | y<<16) & lanes16
	return x | y<<16
}

// unzip16 undoes zip16: [x0 y0 x1 y1] -> x = [x0 x1], y = [y0 y1].
func unzip16(w uint64) (x, y uint64) {
	x = w & lanes16
	y = w >> 16 & lanes16
	return (x | x>>16) & 0xffffffff, (y | y>>16) & 0xffffffff
}

// deltaSwap exchanges the bits of x selected by m with the bits s places
// above them.
func deltaSwap(x, m uint64, s uint) uint64 {
	t := (x ^ x>>s) & m
	return x ^ t ^ t<<s
}

// decode128 reads 32 bytes holding 128 2-bit codes in TQ2_0 byte order
// (element 32l+m is byte m, bits 2l+1:2l) and returns the Present and Neg
// words of elements 0..63 (p0, n0) and 64..127 (p1, n1); bad is non-zero iff
// some code is 3. i2s selects I2_S byte order (element 32l+m in bits
// 7-2l:6-2l).
//
// Each 8-byte load i is an 8x8 bit matrix (row = byte, column = bit);
// transposing it puts bit 0 of the codes of elements 32l+8i..32l+8i+7 in
// byte 2l and their bit 1 in byte 2l+1. (In I2_S order they land in bytes
// 6-2l and 7-2l: a byte swap of the word then gives group l byte 2l+1 for
// bit 0 and byte 2l for bit 1, so only the roles of the two bytes change.)
// Stacking loads 0 and 1 (elements 0..15 of every group) and 2 and 3
// (16..31) gives one group per 16-bit lane, where present/neg/code 3 are
// plain word logic; zip16 then lays the lanes out in element order: group
// l's 32 bits = lane l of lo | lane l of hi << 16.
func decode128(q *[32]byte, i2s bool) (p0, p1, n0, n1, bad uint64) {
	t0 := transpose8x8(binary.LittleEndian.Uint64(q[0:8]))
	t1 := transpose8x8(binary.LittleEndian.Uint64(q[8:16]))
	t2 := transpose8x8(binary.LittleEndian.Uint64(q[16:24]))
	t3 := transpose8x8(binary.LittleEndian.Uint64(q[24:32]))
	if i2s {
		t0, t1, t2, t3 = bits.ReverseBytes64(t0), bits.ReverseBytes64(t1), bits.ReverseBytes64(t2), bits.ReverseBytes64(t3)
	}
	eLo := t0&lanes8 | t1<<8&^lanes8 // even bytes: elements 32l+0..15 in lane l
	oLo := t0>>8&lanes8 | t1&^lanes8 // odd bytes
	eHi := t2&lanes8 | t3<<8&^lanes8 // the same for elements 32l+16..31
	oHi := t2>>8&lanes8 | t3&^lanes8
	b0Lo, b1Lo, b0Hi, b1Hi := eLo, oLo, eHi, oHi // code bits 0 and 1
	if i2s {
		b0Lo, b1Lo, b0Hi, b1Hi = oLo, eLo, oHi, eHi
	}
	pLo, pHi := b1Lo|^b0Lo, b1Hi|^b0Hi
	nLo, nHi := ^(b1Lo | b0Lo), ^(b1Hi | b0Hi)
	p0, p1 = zip16(pLo, pHi), zip16(pLo>>32, pHi>>32)
	n0, n1 = zip16(nLo, nHi), zip16(nLo>>32, nHi>>32)
	return p0, p1, n0, n1, b1Lo&b0Lo | b1Hi&b0Hi
}

// encode128 is the inverse of decode128: it writes the codes of the 128
// weights whose Present/Neg words are p0, n0 (elements 0..63) and p1, n1
// (64..127) into q. Neg bits outside Present are ignored (written as 0).
func encode128(q *[32]byte, p0, p1, n0, n1 uint64, i2s bool) {
	// Code bit planes in element order, then one group per 16-bit lane: lo
	// holds elements 0..15 of each group, hi elements 16..31.
	x0, y0 := unzip16(^p0)
	x1, y1 := unzip16(^p1)
	b0Lo, b0Hi := x0|x1<<32, y0|y1<<32
	x0, y0 = unzip16(p0 &^ n0)
	x1, y1 = unzip16(p1 &^ n1)
	b1Lo, b1Hi := x0|x1<<32, y0|y1<<32
	eLo, oLo, eHi, oHi := b0Lo, b1Lo, b0Hi, b1Hi
	if i2s {
		eLo, oLo, eHi, oHi = b1Lo, b0Lo, b1Hi, b0Hi
	}
	// Per 8-byte store i: the even byte of lane l holds one bit of group
	// l's 8 codes, the odd byte the other; the transpose turns that into
	// one byte per element.
	t0 := eLo&lanes8 | oLo<<8&^lanes8
	t1 := eLo>>8&lanes8 | oLo&^lanes8
	t2 := eHi&lanes8 | oHi<<8&^lanes8
	t3 := eHi>>8&lanes8 | oHi&^lanes8
	if i2s {
		t0, t1, t2, t3 = bits.ReverseBytes64(t0), bits.ReverseBytes64(t1), bits.ReverseBytes64(t2), bits.ReverseBytes64(t3)
	}
	binary.LittleEndian.PutUint64(q[0:8], transpose8x8(t0))
	binary.LittleEndian.PutUint64(q[8:16], transpose8x8(t1))
	binary.LittleEndian.PutUint64(q[16:24], transpose8x8(t2))
	binary.LittleEndian.PutUint64(q[24:32], transpose8x8(t3))
}

// planesFor sizes p for rows x k weights like Planes.Reset, reusing its
// buffers, but does not clear them: for decoders that write every word.
func planesFor(p *Planes, k, rows int) {
	n := k / 64 * rows
	p.K, p.Rows = k, rows
	if cap(p.Present) < n || cap(p.Neg) < n {
		p.Present = make([]uint64, n)
		p.Neg = make([]uint64, n)
		return
	}
	p.Present = p.Present[:n]
	p.Neg = p.Neg[:n]
}
