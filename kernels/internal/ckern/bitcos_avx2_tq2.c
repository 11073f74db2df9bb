//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags). The kernel's FMA is
// explicit (_mm256_fmadd_ps); fp-contract=off keeps everything else apart.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx2_tq2.c"
