//go:build cgo

// kernels/c sha256: 24bd8a04aa3c1a23da0930e5b51487d8da41ce9ea45d4be4e99e2c2fa1ac29f0
// The AVX2 build of the converted weights' one-column kernel (vpmaddubsw,
// ggml's own steps); ./bitcos_tq2_0_avx2_vnni.c is its AVX-VNNI build.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c,fma")
#include "../../c/bitcos_tq2_0_avx2.c"
