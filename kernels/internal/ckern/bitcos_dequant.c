//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
