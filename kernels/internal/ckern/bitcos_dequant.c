//go:build cgo

// kernels/c sha256: b5357bb672d558af5f33414a972c3103ade7f422edd0f81abad25dcd194f9903
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
