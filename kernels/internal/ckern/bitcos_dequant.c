//go:build cgo

// kernels/c sha256: 4bf9fbd62f692a90743074818c7664acb624c51c9328b68367445114197ceb14
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
