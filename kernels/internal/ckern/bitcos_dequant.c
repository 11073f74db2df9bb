//go:build cgo

// kernels/c sha256: ce71bb7e090f11eb232d1bd580c9d25d4d25ba1bfff755ff101f61efa0f3bb6d
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
