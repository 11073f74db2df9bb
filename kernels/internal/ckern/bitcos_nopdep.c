//go:build cgo

// kernels/c sha256: e3340b127044813b9d81f1efe6899403f0fe599148fab69516e26a2b774d4e4e
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_nopdep.c"
