package format

import "math/bits"

// Portable pext/pdep on 64-bit words, a byte of the mask at a time through
// 64 KiB tables: what pextWords and pdepWords run where BMI2's instructions
// are absent or slow (bmi2_amd64.go decides), in noasm builds and on other
// architectures. Both give the same bits on every input
// (TestPextPdepWordsTwins).

var (
	pextTab [256 * 256]uint8 // [mask<<8|value] -> value bits at mask positions, compacted
	pdepTab [256 * 256]uint8 // [mask<<8|bits]  -> low popcount(mask) bits spread to mask positions
)

func init() {
	for m := 0; m < 256; m++ {
		for v := 0; v < 256; v++ {
			var ext, dep uint8
			k := 0
			for j := 0; j < 8; j++ {
				if m&(1<<j) != 0 {
					if v&(1<<j) != 0 {
						ext |= 1 << k
					}
					if v&(1<<k) != 0 {
						dep |= 1 << j
					}
					k++
				}
			}
			pextTab[m<<8|v] = ext
			pdepTab[m<<8|v] = dep
		}
	}
}

// pext64 gathers the bits of v at the set positions of m into the low bits.
func pext64(v, m uint64) uint64 {
	var out uint64
	k := 0
	for i := 0; i < 64 && m != 0; i += 8 {
		mb := uint8(m)
		if mb != 0 {
			out |= uint64(pextTab[int(mb)<<8|int(uint8(v))]) << k
			k += bits.OnesCount8(mb)
		}
		m >>= 8
		v >>= 8
	}
	return out
}

// pdep64 scatters the low bits of v onto the set positions of m.
func pdep64(v, m uint64) uint64 {
	var out uint64
	for i := 0; i < 64 && m != 0; i += 8 {
		mb := uint8(m)
		if mb != 0 {
			out |= uint64(pdepTab[int(mb)<<8|int(uint8(v))]) << i
			v >>= bits.OnesCount8(mb)
		}
		m >>= 8
	}
	return out
}

func pextWordsGeneric(dst, v, m []uint64) {
	for i := range dst {
		dst[i] = pext64(v[i], m[i])
	}
}

func pdepWordsGeneric(dst, v, m []uint64) {
	for i := range dst {
		dst[i] = pdep64(v[i], m[i])
	}
}
