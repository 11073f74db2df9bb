package format

import (
	"encoding/binary"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TQ1_0 is llama.cpp's 1.6875-bit ternary layout (ggml type 34).
//
// Block of 256 weights, 54 bytes (ggml-common.h at the pin, block_tq1_0):
//
//	uint8_t qs[48]; uint8_t qh[4]; ggml_half d;
//
// A byte holds 5 trits (codes 0/1/2 -> -1/0/+1, most significant first) as
// q = sum code_n*3^(4-n), stored as ceil(q*256/243); trit n reads back as
// ((uint8)(byte*3^n) * 3) >> 8 (dequantize_row_tq1_0). Placement
// (quantize_row_tq1_0_ref):
//
//	qs[m],    m < 32: trit n is element m + 32n        (elements 0..159)
//	qs[32+m], m < 16: trit n is element 160 + m + 16n  (elements 160..239)
//	qh[j],    j < 4:  trit n is element 240 + j + 4n, n < 4; the encoder
//	                  multiplies q by 3, so trit 4 is 0 and is never read.
//
// Every byte decodes to valid trits, so TQ1_0 is always ternary; but only 243
// byte values (and, in qh, 81) are what the reference encoder writes. A
// foreign file may hold other bytes: Decode accepts them and Encode writes the
// canonical byte, so callers detect such files by re-encoding.
// Scales: Group 256, F16[i] = d of block i, row-major.
var TQ1_0 tq1_0Codec

var _ Codec = TQ1_0

type tq1_0Codec struct{}

const (
	tq1Elems = ggufx.QK_K
	tq1Bytes = 54
)

func (tq1_0Codec) Name() string         { return "TQ1_0" }
func (tq1_0Codec) Type() ggufx.GGMLType { return ggufx.TypeTQ1_0 }
func (tq1_0Codec) Supports(k int) bool  { return k > 0 && k%tq1Elems == 0 }
func (tq1_0Codec) ScaleGroup() int      { return tq1Elems }

// Redundant: 13 of the 256 byte values (175 of 256 in qh) are not what the
// reference encoder writes (see TQ1_0).
func (tq1_0Codec) Redundant() bool { return true }

// TensorBytes returns -1 for a shape the layout cannot hold.
func (tq1_0Codec) TensorBytes(k, rows int) int {
	n, ok := stockSize(k, rows, tq1Elems, tq1Bytes, 0)
	if !ok {
		return -1
	}
	return n
}

// Lookup tables, built once.
//
// tq1Pres[b] / tq1Neg[b] flag the trits of byte b that are non-zero / -1:
// trit n < 4 at bit 16n (bit 0 of 16-bit lane n), trit 4 at bit 8 (the high
// byte of lane 0). Shifting an entry left by k < 8 keeps every flag inside
// its own byte, so the entries of 8 consecutive bytes OR together, shifted by
// 0..7, into one word whose lane n holds trit n of all 8 bytes, in byte order.
//
// tq1Spread[x] puts bit i of x at bit 8i (bit 0 of byte i).
//
// tq1Byte[q] = ceil(q*256/243), the stored form of the 5 trits q (q < 243).
var tq1Pres, tq1Neg, tq1Spread = tq1Tables()

var tq1Byte = func() (t [256]uint8) {
	for q := range 243 {
		t[q] = uint8((q*256 + 242) / 243)
	}
	return t
}()

func tq1Tables() (pres, neg, spread [256]uint64) {
	pos := [5]uint{0, 16, 32, 48, 8}
	for b := range 256 {
		for n, pow := range [5]int{1, 3, 9, 27, 81} {
			switch int(uint8(b*pow)) * 3 >> 8 {
			case 0:
				neg[b] |= 1 << pos[n]
				pres[b] |= 1 << pos[n]
			case 2:
				pres[b] |= 1 << pos[n]
			}
		}
		for i := range 8 {
			if b&(1<<i) != 0 {
				spread[b] |= 1 << (8 * i)
			}
		}
	}
	return
}

// tq1Gather8 ORs the table entries of 8 bytes, entry k shifted left by k: in
// the result lane n (n < 4) has bit k set iff trit n of q[k] is flagged, and
// bits 8..15 do the same for trit 4.
func tq1Gather8(q *[8]byte, tab *[256]uint64) uint64 {
	return tab[q[0]] | tab[q[1]]<<1 | tab[q[2]]<<2 | tab[q[3]]<<3 |
		tab[q[4]]<<4 | tab[q[5]]<<5 | tab[q[6]]<<6 | tab[q[7]]<<7
}

// tq1DecodeBlock turns one 54-byte block into its 4 words of one plane, tab
// selecting the plane (tq1Pres or tq1Neg).
func tq1DecodeBlock(blk *[tq1Bytes]byte, tab *[256]uint64, w *[4]uint64) {
	// qs[0..31]: trit n of byte m is element 32n+m. a0..a3 hold bytes
	// 0-7, 8-15, 16-23, 24-31.
	a0 := tq1Gather8((*[8]byte)(blk[0:8]), tab)
	a1 := tq1Gather8((*[8]byte)(blk[8:16]), tab)
	a2 := tq1Gather8((*[8]byte)(blk[16:24]), tab)
	a3 := tq1Gather8((*[8]byte)(blk[24:32]), tab)
	// Trits 0..3: lane n of lo = elements 32n+0..15, of hi = 32n+16..31,
	// and zip16 lays the lanes out in element order (as in decode128).
	lo, hi := a0&lanes8|(a1&lanes8)<<8, a2&lanes8|(a3&lanes8)<<8
	w[0] = zip16(lo, hi)
	w[1] = zip16(lo>>32, hi>>32)
	// Trit 4: elements 128..159, from byte 1 of each a.
	g4 := a0>>8&0xff | a1&0xff00 | (a2>>8&0xff)<<16 | (a3&0xff00)<<16
	// qs[32..47]: trit n of byte 32+m is element 160+16n+m; lane n of c
	// holds elements 160+16n+0..15, bits 8..15 of c4 trit 4 (224..239).
	b0 := tq1Gather8((*[8]byte)(blk[32:40]), tab)
	b1 := tq1Gather8((*[8]byte)(blk[40:48]), tab)
	c := b0&lanes8 | (b1&lanes8)<<8
	c4 := b0>>8&0xff | b1&0xff00
	w[2] = g4 | c<<32
	// qh[j]: trit n < 4 is element 240+4n+j; lane n, bits 0..3 of h. The two
	// steps squeeze the four nibbles (at bits 0, 16, 32, 48) to bits 0..15.
	q := (*[4]byte)(blk[48:52])
	h := tab[q[0]] | tab[q[1]]<<1 | tab[q[2]]<<2 | tab[q[3]]<<3
	h &= 0x000f000f000f000f
	h = (h | h>>12) & 0x000000ff000000ff
	h = (h | h>>24) & 0xffff
	w[3] = c>>32 | c4<<32 | h<<48
}

// Decode reads a TQ1_0 tensor; it accepts every byte value (see TQ1_0).
func (tq1_0Codec) Decode(src []byte, k, rows int, p *Planes, s *Scales) error {
	nb, err := checkDecode("TQ1_0", src, k, rows, tq1Elems, tq1Bytes, 0)
	if err != nil {
		return err
	}
	planesFor(p, k, rows)
	s.Group, s.F32, s.Tail = tq1Elems, 0, s.Tail[:0]
	s.F16 = resizeU16(s.F16, nb)
	for b := range nb {
		blk := (*[tq1Bytes]byte)(src[b*tq1Bytes : (b+1)*tq1Bytes])
		tq1DecodeBlock(blk, &tq1Pres, (*[4]uint64)(p.Present[4*b:4*b+4]))
		tq1DecodeBlock(blk, &tq1Neg, (*[4]uint64)(p.Neg[4*b:4*b+4]))
		s.F16[b] = binary.LittleEndian.Uint16(blk[52:54])
	}
	return nil
}

// tq1Trit is one trit of 8 output bytes at once, a code (0, 1 or 2) per
// byte lane: 1 + present - 2*neg, from 8 present and 8 neg flags (neg
// already masked into present, so no lane borrows).
func tq1Trit(p, n uint64) uint64 {
	return bytes1 + tq1Spread[uint8(p)] - tq1Spread[uint8(n)]<<1
}

// tq1Digits5 is, per byte lane, the base-3 number q = sum code_n*3^(4-n) of
// 5 trits whose flags are the low bytes of p0..p4 and n0..n4. Horner's rule
// runs on all 8 lanes together: no partial value exceeds 242, so no lane
// carries into the next.
func tq1Digits5(p0, p1, p2, p3, p4, n0, n1, n2, n3, n4 uint64) uint64 {
	q := tq1Trit(p0, n0)
	q = q*3 + tq1Trit(p1, n1)
	q = q*3 + tq1Trit(p2, n2)
	q = q*3 + tq1Trit(p3, n3)
	return q*3 + tq1Trit(p4, n4)
}

// tq1Put8 stores the 8 lanes of q, each a value below 243, as their bytes.
func tq1Put8(dst []byte, q uint64) {
	dst = dst[:8]
	dst[0] = tq1Byte[uint8(q)]
	dst[1] = tq1Byte[uint8(q>>8)]
	dst[2] = tq1Byte[uint8(q>>16)]
	dst[3] = tq1Byte[uint8(q>>24)]
	dst[4] = tq1Byte[uint8(q>>32)]
	dst[5] = tq1Byte[uint8(q>>40)]
	dst[6] = tq1Byte[uint8(q>>48)]
	dst[7] = tq1Byte[uint8(q>>56)]
}

// tq1EncodeBlock writes one block's codes (not its scale) from its 4 Present
// and Neg words.
func tq1EncodeBlock(blk *[tq1Bytes]byte, pw, nw *[4]uint64) {
	p0, p1, p2, p3 := pw[0], pw[1], pw[2], pw[3]
	n0, n1, n2, n3 := nw[0]&p0, nw[1]&p1, nw[2]&p2, nw[3]&p3
	// qs[0..31]: trit n of byte m is element 32n+m, i.e. bit m of the 32-bit
	// group starting at bit 32n: byte i of each group feeds bytes 8i..8i+7.
	// (Unrolled: constant shifts are single instructions.)
	tq1Put8(blk[0:], tq1Digits5(p0, p0>>32, p1, p1>>32, p2,
		n0, n0>>32, n1, n1>>32, n2))
	tq1Put8(blk[8:], tq1Digits5(p0>>8, p0>>40, p1>>8, p1>>40, p2>>8,
		n0>>8, n0>>40, n1>>8, n1>>40, n2>>8))
	tq1Put8(blk[16:], tq1Digits5(p0>>16, p0>>48, p1>>16, p1>>48, p2>>16,
		n0>>16, n0>>48, n1>>16, n1>>48, n2>>16))
	tq1Put8(blk[24:], tq1Digits5(p0>>24, p0>>56, p1>>24, p1>>56, p2>>24,
		n0>>24, n0>>56, n1>>24, n1>>56, n2>>24))
	// qs[32..47]: trit n of byte 32+m is element 160+16n+m (16-bit groups
	// from bit 32 of word 2 on).
	tq1Put8(blk[32:], tq1Digits5(p2>>32, p2>>48, p3, p3>>16, p3>>32,
		n2>>32, n2>>48, n3, n3>>16, n3>>32))
	tq1Put8(blk[40:], tq1Digits5(p2>>40, p2>>56, p3>>8, p3>>24, p3>>40,
		n2>>40, n2>>56, n3>>8, n3>>24, n3>>40))
	// qh[j]: trit n < 4 is element 240+4n+j, the nibble at bit 48+4n of word
	// 3. The four trits are then shifted up one place (times 3), as the
	// reference does, leaving trit 4 zero. Lanes 4..7 are unused.
	q := tq1Trit(p3>>48&0xf, n3>>48&0xf)
	q = q*3 + tq1Trit(p3>>52&0xf, n3>>52&0xf)
	q = q*3 + tq1Trit(p3>>56&0xf, n3>>56&0xf)
	q = q*3 + tq1Trit(p3>>60, n3>>60)
	q *= 3
	blk[48] = tq1Byte[uint8(q)]
	blk[49] = tq1Byte[uint8(q>>8)]
	blk[50] = tq1Byte[uint8(q>>16)]
	blk[51] = tq1Byte[uint8(q>>24)]
}

// Encode writes p and s as TQ1_0, byte for byte as quantize_row_tq1_0_ref
// packs the same trits.
func (tq1_0Codec) Encode(p *Planes, s *Scales, dst []byte) error {
	nb, err := checkEncode("TQ1_0", p, s, dst, tq1Elems, tq1Bytes, 0, tq1Elems)
	if err != nil {
		return err
	}
	for b := range nb {
		blk := (*[tq1Bytes]byte)(dst[b*tq1Bytes : (b+1)*tq1Bytes])
		tq1EncodeBlock(blk, (*[4]uint64)(p.Present[4*b:4*b+4]), (*[4]uint64)(p.Neg[4*b:4*b+4]))
		binary.LittleEndian.PutUint16(blk[52:54], s.F16[b])
	}
	return nil
}
