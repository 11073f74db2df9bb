//go:build cgo

// kernels/c sha256: 21849d4b9a9400e58112c10a780f46f938ceccaccd4c6eae8f9425bd2c221223
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
