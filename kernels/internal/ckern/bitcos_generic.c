//go:build cgo

// kernels/c sha256: 68aeb0c4bcb7d35817f19577f7491c12c3b07e8f6930b66b3d9c025cded2c465
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
