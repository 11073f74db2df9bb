//go:build cgo

// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the f32-block NEON kernel (a call to the scalar
// reference in the ARM order); the NEON path is tested under qemu-aarch64
// (kernels/neon_qemu_test.go).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2_0.c"
