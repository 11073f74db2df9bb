//go:build cgo

// kernels/c sha256: 21849d4b9a9400e58112c10a780f46f938ceccaccd4c6eae8f9425bd2c221223
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_avx512_twin.c"
