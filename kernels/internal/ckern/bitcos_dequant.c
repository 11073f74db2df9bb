//go:build cgo

// kernels/c sha256: 68aeb0c4bcb7d35817f19577f7491c12c3b07e8f6930b66b3d9c025cded2c465
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
