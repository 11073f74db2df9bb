//go:build !noasm

package format

import "github.com/klauspost/cpuid/v2"

// Assembly fast paths of the TQ2_0, I2_S and Q2_0 decoders
// (decode_amd64.s); decode_other.go holds the pure-Go dispatch used on other
// architectures and under the noasm build tag. Each writes every Present/Neg
// word of a tensor and reports whether some code is 3; the Decode methods
// keep the scales, the size checks and the exact NotTernaryError in Go.
//
// The TQ2_0/I2_S kernels use AVX2 only (cpuid also checks that the OS saves
// the YMM state). The Q2_0 kernel is pext-bound, so it follows useBMI2,
// which leaves out the CPUs that run pext in microcode (bmi2_amd64.go).
var useAVX2 = cpuid.CPU.Supports(cpuid.AVX2)

//go:noescape
func decodeTQ2AVX2(pres, neg []uint64, src []byte) (bad bool)

//go:noescape
func decodeI2SAVX2(pres, neg []uint64, src []byte) (bad bool)

//go:noescape
func decodeQ2BMI2(pres, neg []uint64, src []byte) (bad bool)

// decodeTQ2 decodes the len(pres)/4 TQ2_0 blocks at the start of src into
// pres and neg (4 words per block) and reports whether some code is 3.
func decodeTQ2(pres, neg []uint64, src []byte) bool {
	nb := len(pres) / 4
	if !useAVX2 || nb == 0 {
		return decodeTQ2Generic(pres, neg, src)
	}
	_, _ = neg[4*nb-1], src[nb*tq2Bytes-1]
	return decodeTQ2AVX2(pres[:4*nb], neg, src)
}

// decodeI2S decodes the len(pres)/2 I2_S groups of 128 weights at the start
// of src into pres and neg (2 words per group) and reports whether some code
// is 3.
func decodeI2S(pres, neg []uint64, src []byte) bool {
	ng := len(pres) / 2
	if !useAVX2 || ng == 0 {
		return decodeI2SGeneric(pres, neg, src)
	}
	_, _ = neg[2*ng-1], src[ng*i2sBytes-1]
	return decodeI2SAVX2(pres[:2*ng], neg, src)
}

// decodeQ2 decodes the len(pres) Q2_0 blocks at the start of src into pres
// and neg (1 word per block) and reports whether some code is 3.
func decodeQ2(pres, neg []uint64, src []byte) bool {
	nb := len(pres)
	if !useBMI2 || nb == 0 {
		return decodeQ2Generic(pres, neg, src)
	}
	_, _ = neg[nb-1], src[nb*q2Bytes-1]
	return decodeQ2BMI2(pres, neg, src)
}
