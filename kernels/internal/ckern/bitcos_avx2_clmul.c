//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
// bitcos_avx2_clmul.c with VPCLMULQDQ (the squaring on both 128-bit lanes at
// once), as llama.cpp builds it with -march=native on Ice Lake or Zen 3.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul,vpclmulqdq")
#include "../../c/bitcos_avx2_clmul.c"
