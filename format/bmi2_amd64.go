//go:build !noasm

package format

import "github.com/klauspost/cpuid/v2"

// BMI2's pext/pdep are single fast instructions on Intel since Haswell and on
// AMD since Zen 3; where they are microcoded (SlowPdep) the table versions
// are faster.
var useBMI2 = cpuid.CPU.Supports(cpuid.BMI2) && !SlowPdep(cpuid.CPU.VendorID, cpuid.CPU.Family)

//go:noescape
func pextWordsBMI2(dst, v, m []uint64)

//go:noescape
func pdepWordsBMI2(dst, v, m []uint64)

// pextWords sets dst[i] = pext(v[i], m[i]).
func pextWords(dst, v, m []uint64) {
	if len(dst) == 0 {
		return
	}
	if useBMI2 {
		_, _ = v[len(dst)-1], m[len(dst)-1]
		pextWordsBMI2(dst, v, m)
		return
	}
	pextWordsGeneric(dst, v, m)
}

// pdepWords sets dst[i] = pdep(v[i], m[i]).
func pdepWords(dst, v, m []uint64) {
	if len(dst) == 0 {
		return
	}
	if useBMI2 {
		_, _ = v[len(dst)-1], m[len(dst)-1]
		pdepWordsBMI2(dst, v, m)
		return
	}
	pdepWordsGeneric(dst, v, m)
}

//go:noescape
func depositRowBMI2(neg []uint64, signs []byte, pos int, pres []uint64) int

// depositRow is depositRowGeneric, in BMI2 assembly where that is fast.
func depositRow(neg, dep []uint64, signs []byte, pos int, pres []uint64) int {
	if useBMI2 && len(pres) > 0 {
		_ = neg[len(pres)-1]
		return depositRowBMI2(neg, signs, pos, pres)
	}
	return depositRowGeneric(neg, dep, signs, pos, pres)
}

//go:noescape
func packRowBMI2(out []byte, pres, neg []uint64) int

// packRow is packRowGeneric, in BMI2 assembly where that is fast. out must
// be exactly the row's sign bytes (the caller sized it from the popcounts).
func packRow(out []byte, ext, pres, neg []uint64) int {
	if useBMI2 && len(pres) > 0 {
		_ = neg[len(pres)-1]
		return packRowBMI2(out, pres, neg)
	}
	return packRowGeneric(out, ext, pres, neg)
}
