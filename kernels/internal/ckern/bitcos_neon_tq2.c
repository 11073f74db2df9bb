//go:build cgo

// kernels/c sha256: 7b493ee758089861a1bea961abd4127911e0e5e744460af945758c53579c306a
// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the NEON file (BITCOS_NEON_TQ2_SIMD == 0): the scalar
// ARM-order kernels; the NEON paths are tested under qemu-aarch64
// (kernels/neon_qemu_test.go). fmaf is explicit; fp-contract=off keeps the
// other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2.c"
