//go:build cgo

// kernels/c sha256: 28872ecba432b4b93a3dd90d7ed3f11d6b81eec8a97aedbf33149dae7992301c
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
