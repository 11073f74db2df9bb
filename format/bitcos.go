package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
)

// BITCOS (docs/FORMAT.md) stores a ternary tensor as
//   - a presence bitmap, 1 bit per weight (the Present plane's bytes), and
//   - per row, the signs of the row's non-zero weights in order, 1 bit each
//     (1 = negative), LSB first, each row starting on a byte boundary; the
//     stream ends with SignTailBytes zero bytes so that a 64-bit load at any
//     row start never leaves the tensor;
//   - a row index: rows+1 int32 byte offsets into the sign stream.
//
// Row r's signs are the bits of Neg at the positions where Present is set,
// compacted: pext(Neg, Present), word by word. Decoding deposits them back:
// Neg = pdep(signs, Present).

// BitcosBlock is the number of weights per BITCOS block (16 bitmap bytes); a
// row length must be a multiple of it.
const BitcosBlock = 128

// SignTailBytes zero bytes end every sign stream.
const SignTailBytes = 8

// BitcosBitmapBytes is the size of the presence bitmap of rows x k weights.
func BitcosBitmapBytes(k, rows int) int { return k / 8 * rows }

// RowNonZeros returns the number of non-zero weights in each row of p.
func RowNonZeros(p *Planes, dst []int) []int {
	wpr := p.WordsPerRow()
	dst = dst[:0]
	for r := 0; r < p.Rows; r++ {
		n := 0
		for _, w := range p.Present[r*wpr : (r+1)*wpr] {
			n += bits.OnesCount64(w)
		}
		dst = append(dst, n)
	}
	return dst
}

// BitcosRowOffsets returns the rows+1 sign-stream offsets for the given
// per-row non-zero counts: row r's stream is ceil(nnz/8) bytes.
func BitcosRowOffsets(nnz []int) ([]uint32, error) {
	off := make([]uint32, len(nnz)+1)
	var total uint64
	for r, n := range nnz {
		total += uint64(n+7) / 8
		if total > 1<<31-1-SignTailBytes {
			return nil, fmt.Errorf("sign stream exceeds the int32 row index at row %d", r)
		}
		off[r+1] = uint32(total)
	}
	return off, nil
}

// EncodeBitcos writes p as BITCOS: bitmap (BitcosBitmapBytes long), signs
// (off[rows]+SignTailBytes long) and rowIndex ((rows+1)*4 bytes, int32 LE),
// where off = BitcosRowOffsets(RowNonZeros(p)).
func EncodeBitcos(p *Planes, off []uint32, bitmap, signs, rowIndex []byte) error {
	wpr := p.WordsPerRow()
	if len(off) != p.Rows+1 || len(bitmap) != BitcosBitmapBytes(p.K, p.Rows) ||
		len(signs) != int(off[p.Rows])+SignTailBytes || len(rowIndex) != 4*(p.Rows+1) {
		return fmt.Errorf("bitcos: encode buffers do not match a %dx%d tensor", p.Rows, p.K)
	}
	copy(bitmap, bytesOfWords(p.Present))
	for i, o := range off {
		binary.LittleEndian.PutUint32(rowIndex[4*i:], o)
	}
	ext := make([]uint64, wpr) // one row's signs, compacted word by word
	for r := 0; r < p.Rows; r++ {
		out := signs[off[r]:off[r+1]]
		pres := p.Present[r*wpr : (r+1)*wpr]
		o := packRow(out, ext, pres, p.Neg[r*wpr:(r+1)*wpr])
		if o != len(out) {
			return fmt.Errorf("bitcos: row %d wrote %d sign bytes, index says %d", r, o, len(out))
		}
	}
	clear(signs[off[p.Rows]:])
	return nil
}

// DecodeBitcos reads a BITCOS tensor of rows x k weights into p. It checks
// everything a reader can: sizes, a monotone row index whose row lengths match
// the bitmap's popcounts, zero padding bits and a zero tail, so that only the
// canonical encoding of p decodes.
func DecodeBitcos(k, rows int, bitmap, signs, rowIndex []byte, p *Planes) error {
	if err := checkBitcosShape(k, rows, bitmap, rowIndex); err != nil {
		return err
	}
	planesFor(p, k, rows) // every word of both planes is written below
	wordsFromBytes(p.Present, bitmap)
	wpr := p.WordsPerRow()
	return walkBitcos(k, rows, signs, rowIndex, p.Present, func(r int, neg []uint64) error {
		copy(p.Neg[r*wpr:], neg)
		return nil
	})
}

// VerifyBitcos checks that bitmap, signs and rowIndex are exactly the BITCOS
// encoding of p, with the checks of DecodeBitcos, without building a second
// Planes: repack runs it on every tensor it writes.
func VerifyBitcos(p *Planes, bitmap, signs, rowIndex []byte) error {
	if err := checkBitcosShape(p.K, p.Rows, bitmap, rowIndex); err != nil {
		return err
	}
	if !bytes.Equal(bytesOfWords(p.Present), bitmap) {
		for i, w := range p.Present {
			if binary.LittleEndian.Uint64(bitmap[8*i:]) != w {
				wpr := p.WordsPerRow()
				return fmt.Errorf("bitcos: presence bitmap differs in row %d near element %d", i/wpr, i%wpr*64)
			}
		}
	}
	wpr := p.WordsPerRow()
	return walkBitcos(p.K, p.Rows, signs, rowIndex, p.Present, func(r int, neg []uint64) error {
		for i, w := range neg {
			if w != p.Neg[r*wpr+i] {
				return fmt.Errorf("bitcos: signs differ in row %d near element %d", r, i*64)
			}
		}
		return nil
	})
}

func checkBitcosShape(k, rows int, bitmap, rowIndex []byte) error {
	if k <= 0 || k%BitcosBlock != 0 || rows <= 0 {
		return fmt.Errorf("bitcos: bad shape %dx%d (row length must be a positive multiple of %d)", rows, k, BitcosBlock)
	}
	if len(bitmap) != BitcosBitmapBytes(k, rows) {
		return fmt.Errorf("bitcos: bitmap is %d bytes, want %d", len(bitmap), BitcosBitmapBytes(k, rows))
	}
	if len(rowIndex) != 4*(rows+1) {
		return fmt.Errorf("bitcos: row index is %d bytes, want %d", len(rowIndex), 4*(rows+1))
	}
	if binary.LittleEndian.Uint32(rowIndex) != 0 {
		return fmt.Errorf("bitcos: row index starts at %d, want 0", binary.LittleEndian.Uint32(rowIndex))
	}
	return nil
}

// walkBitcos decodes the sign stream row by row against the presence words
// (rows x k/64) and hands each row's Neg words to row, checking the index,
// the padding bits and the tail on the way.
func walkBitcos(k, rows int, signs, rowIndex []byte, present []uint64, row func(r int, neg []uint64) error) error {
	wpr := k / 64
	end := uint64(0)
	dep := make([]uint64, wpr) // one row's sign chunks, one per bitmap word
	neg := make([]uint64, wpr)
	for r := 0; r < rows; r++ {
		start := uint64(binary.LittleEndian.Uint32(rowIndex[4*r:]))
		end = uint64(binary.LittleEndian.Uint32(rowIndex[4*r+4:]))
		pres := present[r*wpr : (r+1)*wpr]
		nnz := 0
		for _, w := range pres {
			nnz += bits.OnesCount64(w)
		}
		if end < start || end-start != uint64(nnz+7)/8 {
			return fmt.Errorf("bitcos: row %d: index gives %d..%d, but the row has %d non-zero weights (%d sign bytes)", r, start, end, nnz, (nnz+7)/8)
		}
		if end+SignTailBytes > uint64(len(signs)) {
			return fmt.Errorf("bitcos: row %d: signs end at %d, beyond the %d-byte stream and its %d-byte tail", r, end, len(signs), SignTailBytes)
		}
		// Bit pos of the stream is bit pos%8 of byte pos/8. A row's bits end
		// before byte end, and end+8 <= len(signs) (checked above), so an
		// 8-byte load at any byte of the row stays inside signs; the ninth
		// byte a misaligned 64-bit field needs is inside the row.
		pos := depositRow(neg, dep, signs, int(start)*8, pres)
		if rest := int(end)*8 - pos; rest > 0 && signs[pos>>3]>>(pos&7) != 0 {
			return fmt.Errorf("bitcos: row %d: non-zero padding bits after the last sign", r)
		}
		if err := row(r, neg); err != nil {
			return err
		}
	}
	for i, b := range signs[end:] {
		if b != 0 {
			return fmt.Errorf("bitcos: sign stream byte %d after the last row is %#x, want zero padding", int(end)+i, b)
		}
	}
	if uint64(len(signs)) != end+SignTailBytes {
		return fmt.Errorf("bitcos: sign stream is %d bytes, want %d (%d sign bytes + %d-byte tail)", len(signs), end+SignTailBytes, end, SignTailBytes)
	}
	return nil
}

// depositRowGeneric reads, for each presence word pres[i], its popcount's
// worth of sign bits from signs starting at bit pos, and deposits them onto
// the present lanes: neg[i] = pdep(bits, pres[i]). It returns the bit
// position after the row. dep is scratch of len(pres). The caller guarantees
// an 8-byte load at any byte of the row stays inside signs (walkBitcos).
func depositRowGeneric(neg, dep []uint64, signs []byte, pos int, pres []uint64) int {
	for i, m := range pres {
		c := bits.OnesCount64(m)
		if c == 0 {
			dep[i] = 0
			continue
		}
		b, sh := pos>>3, uint(pos&7)
		v := binary.LittleEndian.Uint64(signs[b:]) >> sh
		if sh != 0 && c > 64-int(sh) {
			v |= uint64(signs[b+8]) << (64 - sh)
		}
		if c < 64 {
			v &= 1<<uint(c) - 1
		}
		dep[i] = v
		pos += c
	}
	pdepWords(neg, dep, pres)
	return pos
}

// packRowGeneric compacts one row's signs into out (the row's exact
// ceil(nnz/8) bytes): word by word pext(neg, pres), appended LSB first.
// ext is scratch of len(pres). It returns the bytes written.
func packRowGeneric(out []byte, ext, pres, neg []uint64) int {
	pextWords(ext, neg, pres)
	var acc uint64 // pending sign bits, LSB first
	nacc := 0
	o := 0
	for i, m := range pres {
		c := bits.OnesCount64(m)
		if c == 0 {
			continue
		}
		s := ext[i]
		acc |= s << nacc
		if nacc+c >= 64 {
			binary.LittleEndian.PutUint64(out[o:], acc)
			o += 8
			used := 64 - nacc // bits of s consumed
			nacc = c - used
			if used == 64 {
				acc = 0
			} else {
				acc = s >> used
			}
		} else {
			nacc += c
		}
	}
	for ; nacc > 0; nacc -= 8 {
		out[o] = byte(acc)
		acc >>= 8
		o++
	}
	return o
}
