//go:build cgo

// kernels/c sha256: bb09912e4fb79dc5b8dbabbd89c71a5d1c160da1016da06da93b4e191c24a6e8
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
