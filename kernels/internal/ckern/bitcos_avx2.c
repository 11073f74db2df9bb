//go:build cgo

// kernels/c sha256: a2a3fefa1bef8544d3414b6063b8e0418a6351a7ef7c43205bfe6fc03f53fc53
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
