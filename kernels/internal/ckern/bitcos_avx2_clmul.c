//go:build cgo

// kernels/c sha256: ce71bb7e090f11eb232d1bd580c9d25d4d25ba1bfff755ff101f61efa0f3bb6d
// bitcos_avx2_clmul.c with VPCLMULQDQ (the squaring on both 128-bit lanes at
// once), as llama.cpp builds it with -march=native on Ice Lake or Zen 3.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt,fma,pclmul,vpclmulqdq")
#include "../../c/bitcos_avx2_clmul.c"
