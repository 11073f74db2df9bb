//go:build cgo

// kernels/c sha256: 13eea6d077bb6d945205fce0f6c0e53a5c66a87c41bad7e649d70c2783006a56
// bitcos_avx2_clmul.c with VPCLMULQDQ (the squaring on both 128-bit lanes at
// once), as llama.cpp builds it with -march=native on Ice Lake or Zen 3.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul,vpclmulqdq")
#include "../../c/bitcos_avx2_clmul.c"
