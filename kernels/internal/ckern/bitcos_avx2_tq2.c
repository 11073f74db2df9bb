//go:build cgo

// kernels/c sha256: f2b7c1320a2ab6570f10d401882df0b3c87f163aa240212849fe01d0727703fe
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags). The kernel's FMA is
// explicit (_mm256_fmadd_ps); fp-contract=off keeps everything else apart.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx2_tq2.c"
