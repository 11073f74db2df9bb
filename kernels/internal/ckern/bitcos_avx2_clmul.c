//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// bitcos_avx2_clmul.c with VPCLMULQDQ (the squaring on both 128-bit lanes at
// once), as llama.cpp builds it with -march=native on Ice Lake or Zen 3.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul,vpclmulqdq")
#include "../../c/bitcos_avx2_clmul.c"
