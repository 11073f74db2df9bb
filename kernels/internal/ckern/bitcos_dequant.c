//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
