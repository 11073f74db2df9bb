//go:build cgo

// kernels/c sha256: 7886eaca4bcbb87525a04972d76bd97ab47f6d33777f4837abb45e99a20270b3
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
