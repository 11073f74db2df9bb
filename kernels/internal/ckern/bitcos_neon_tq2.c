//go:build cgo

// kernels/c sha256: 8fd8352b12c26c0bdd49b9b3eee88b82ea3b5ce9e927fe6e46d3b1e44f040d37
// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the NEON file (BITCOS_NEON_TQ2_SIMD == 0): the scalar
// ARM-order kernels; the NEON paths are tested under qemu-aarch64
// (kernels/neon_qemu_test.go). fmaf is explicit; fp-contract=off keeps the
// other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2.c"
