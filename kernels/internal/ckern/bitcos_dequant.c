//go:build cgo

// kernels/c sha256: ea76f8a8082a45ece8217f62aadf58f631ce104289501f393afeb799b78aedfb
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
