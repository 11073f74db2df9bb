//go:build cgo

// kernels/c sha256: a0f0caec83fbdebfa4e674f57a2deda281dc1bc28784b783f00431d6d132f3d8
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_nopdep.c"
