//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// One translation unit per kernel file (see ckern.go). On amd64 this builds
// the portable path of the f32-block NEON kernel (a call to the scalar
// reference in the ARM order); the NEON path is tested under qemu-aarch64
// (kernels/neon_qemu_test.go).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_neon_tq2_0.c"
