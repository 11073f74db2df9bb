//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// The AVX2 build of the converted weights' one-column kernel (vpmaddubsw,
// ggml's own steps); ./bitcos_tq2_0_avx2_vnni.c is its AVX-VNNI build.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c,fma")
#include "../../c/bitcos_tq2_0_avx2.c"
