//go:build cgo

// kernels/c sha256: 28872ecba432b4b93a3dd90d7ed3f11d6b81eec8a97aedbf33149dae7992301c
// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the NEON file (BITCOS_NEON_TQ2_SIMD == 0): the scalar
// ARM-order kernels; the NEON paths are tested under qemu-aarch64
// (kernels/neon_qemu_test.go). fmaf is explicit; fp-contract=off keeps the
// other float steps apart.
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2.c"
