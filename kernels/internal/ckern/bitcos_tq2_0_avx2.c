//go:build cgo

// The AVX2 build of the converted weights' one-column kernel (vpmaddubsw,
// ggml's own steps); ./bitcos_tq2_0_avx2_vnni.c is its AVX-VNNI build.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c,fma")
#include "../../c/bitcos_tq2_0_avx2.c"
