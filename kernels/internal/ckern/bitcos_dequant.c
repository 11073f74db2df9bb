//go:build cgo

// kernels/c sha256: 71426b11bf59873a9e5d3bdb1c365483d75eb112ddf6650ddc70c02aa737da08
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
