//go:build !amd64 || noasm

package format

const useBMI2 = false

func pextWords(dst, v, m []uint64) { pextWordsGeneric(dst, v, m) }
func pdepWords(dst, v, m []uint64) { pdepWordsGeneric(dst, v, m) }

func depositRow(neg, dep []uint64, signs []byte, pos int, pres []uint64) int {
	return depositRowGeneric(neg, dep, signs, pos, pres)
}

func packRow(out []byte, ext, pres, neg []uint64) int { return packRowGeneric(out, ext, pres, neg) }
