//go:build cgo

// The AVX-512 VNNI build of the converted weights' one-column kernel, its own
// translation unit under other names (../ckern has the scalar build under
// the real ones). VL, VNNI, F16C and FMA are pragmas (cgo rejects those
// flags); the kernel's FMA is explicit (_mm256_fmadd_ps).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("f16c,fma,avx512vl,avx512vnni")
#define bitcos_have_tq2_0_vnni ckern512_have_tq2_0_vnni
#define bitcos_tq2_0_vec_dot_q8_K_vnni ckern512_tq2_0_vec_dot_q8_K_vnni
#define bitcos_tq2_0_f32_vec_dot_q8_K_vnni ckern512_tq2_0_f32_vec_dot_q8_K_vnni
#include "../../c/bitcos_tq2_0_vnni.c"
