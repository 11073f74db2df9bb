//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
