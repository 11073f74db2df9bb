//go:build cgo

// kernels/c sha256: 045dfb2b439df339a9c9807623dc5976dfbd4e8161c50bf9d648d022374c592b
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
