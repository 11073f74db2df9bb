//go:build cgo

// kernels/c sha256: 5bfa9c5afbb5c0138abe81a00365c7e02b0bc7a4224dec0bd2d765f4ae41745f
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
