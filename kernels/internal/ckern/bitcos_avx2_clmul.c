//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// bitcos_avx2_clmul.c with VPCLMULQDQ (the squaring on both 128-bit lanes at
// once), as llama.cpp builds it with -march=native on Ice Lake or Zen 3.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul,vpclmulqdq")
#include "../../c/bitcos_avx2_clmul.c"
