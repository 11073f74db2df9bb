//go:build !amd64 || noasm

package format

const useBMI2 = false

func pextWords(dst, v, m []uint64) { pextWordsGeneric(dst, v, m) }
func pdepWords(dst, v, m []uint64) { pdepWordsGeneric(dst, v, m) }
