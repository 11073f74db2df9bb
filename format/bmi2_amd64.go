//go:build !noasm

package format

import "github.com/klauspost/cpuid/v2"

// BMI2's pext/pdep are single fast instructions on Intel since Haswell and on
// AMD since Zen 3; Zen 1/2 (family 0x17) run them in microcode at tens of
// cycles per call, slower than the table versions.
var useBMI2 = cpuid.CPU.Supports(cpuid.BMI2) &&
	!(cpuid.CPU.VendorID == cpuid.AMD && cpuid.CPU.Family < 0x19)

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
