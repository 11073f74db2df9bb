//go:build cgo

// kernels/c sha256: 293ef58fce6670cc59240253c94bb96959bffb60146fc2b483acea331ea794c6
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
