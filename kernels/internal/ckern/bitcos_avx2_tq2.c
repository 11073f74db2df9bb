//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags). The kernel's FMA is
// explicit (_mm256_fmadd_ps); fp-contract=off keeps everything else apart.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx2_tq2.c"
