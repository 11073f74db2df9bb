//go:build cgo

// bitcos_avx512_tq2.c once more, with AVX512-VNNI (its vpdpbusd path), as
// its own translation unit under other names, so that the tests cover both
// paths of the kernel on a CPU that has VNNI.
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("bmi2,f16c,popcnt,fma,avx512vl,avx512vnni")
#define bitcos_vec_dot_q8_K_avx512_tq2 bitcos_vec_dot_q8_K_avx512_tq2_vnni
#define bitcos_have_avx512_tq2 bitcos_have_avx512_tq2_vnni
#include "../../c/bitcos_avx512_tq2.c"
