package format

import "github.com/klauspost/cpuid/v2"

// SlowPdep is the one "slow pdep" rule of gguf-bitcos: BMI2's pdep/pext are
// microcoded on AMD before Zen 3 (family 0x17, Zen 1/2, and earlier ones
// such as Excavator, 0x15) and on Hygon (0x18, Zen 1), tens to hundreds of
// cycles per call, slower than table code. It is the Go twin of
// bitcos_slow_pdep (kernels/c/bitcos_select.c), which picks llama.cpp's
// kernel; kernels.TestSlowPdepTwin checks that the two agree.
func SlowPdep(v cpuid.Vendor, family int) bool {
	return (v == cpuid.AMD || v == cpuid.Hygon) && family < 0x19
}
