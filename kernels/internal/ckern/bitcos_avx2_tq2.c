//go:build cgo

// kernels/c sha256: ce71bb7e090f11eb232d1bd580c9d25d4d25ba1bfff755ff101f61efa0f3bb6d
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags). The kernel's FMA is
// explicit (_mm256_fmadd_ps); fp-contract=off keeps everything else apart.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma")
#include "../../c/bitcos_avx2_tq2.c"
