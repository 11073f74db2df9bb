//go:build cgo

// The TQ2_0 yardstick (c/bench/tq2_0.c) once more, built as ggml builds its
// own TQ2_0 kernel: -O3 (the loops unrolled) with FMA and GCC's default
// -ffp-contract=fast, so that its multiply and add fuse into one vfmadd per
// block as in llama.cpp's AVX2 build (the TQ2_0 x86 float order: bit-identical
// to kernels.VecDotQ8KTQ2Order, TestTQ2YardstickAsGGML). gguf-bitcos advise
// times the TQ2_0 layout with it. Under other names, beside the -O2 build of
// tq2_0.c (fp-contract=off) that the kernels' tests use.
#pragma GCC optimize("O3")
#pragma GCC target("avx2,f16c,fma")
#define tq2_vec_dot_q8_K_generic    tq2_vec_dot_q8_K_generic_ggml
#define tq2_vec_dot_q8_K_avx2       tq2_vec_dot_q8_K_avx2_ggml
#define tq2_vec_dot_q8_K_avx2_exact tq2_vec_dot_q8_K_avx2_exact_ggml
#define tq2_have_avx2               tq2_have_avx2_ggml
#include "../../c/bench/tq2_0.c"
