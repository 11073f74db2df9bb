//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the NEON file (BITCOS_NEON_TQ2_SIMD == 0): the scalar
// ARM-order kernels; the NEON paths are tested under qemu-aarch64
// (kernels/neon_qemu_test.go). fmaf is explicit; fp-contract=off keeps the
// other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2.c"
