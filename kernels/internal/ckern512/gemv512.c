//go:build cgo

#include "../../c/bitcos.h"
#include "../../c/bitcos_tq2fast.h"
#include <stddef.h>

static void ckern512_run(bitcos_vec_dot_t fn, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                         const uint16_t * d16, float d32, const void * y, float * out) {
    for (int r = 0; r < rows; ++r) {
        const int i = repeat ? 0 : r;
        fn(k, out + r, bitmap + (size_t) i * (k / 8), signs + off[i], d16 ? d16 + (size_t) i * (k / 256) : 0, d32, y);
        __asm__ volatile("" ::: "memory");
    }
}

void bitcos_vec_dot_q8_K_avx512_tq2_vnni(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                         const uint16_t * d16, float d32, const void * vy);

// tq2 == 1: bitcos_vec_dot_q8_K_avx512_tq2 (TQ2_0's float order); tq2 == 2:
// the same kernel built with AVX512-VNNI (bitcos_avx512_tq2_vnni.c); other
// values are not used.
void ckern512_gemv(int tq2, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, const void * y, float * out) {
    ckern512_run(tq2 == 2 ? bitcos_vec_dot_q8_K_avx512_tq2_vnni : bitcos_vec_dot_q8_K_avx512_tq2, k, rows, repeat, bitmap, signs, off, d16, d32, y, out);
}

void ckern512_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
void ckern512_tq2_0_f32_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);

// rows rows of k weights in TQ2_0 blocks (66 bytes per 256; f32 blocks of 68
// when f32) times the column y with the VNNI build of
// bitcos_tq2_0_vec_dot_q8_K_vnni (or its _f32 form), one row after the
// other as ggml's mul_mat calls a vec_dot: one cgo call for many rows (advise
// times chunks of 64 rows, where a cgo call per row would weigh).
void ckern512_tq2_0_gemv_vnni(int k, int rows, const void * x, int f32, const void * y, float * out) {
    const uint8_t * xb = (const uint8_t *) x;
    const size_t row = (size_t) (k / 256) * (f32 ? 68 : 66);
    for (int r = 0; r < rows; ++r) {
        if (f32) {
            ckern512_tq2_0_f32_vec_dot_q8_K_vnni(k, out + r, xb + (size_t) r * row, y);
        } else {
            ckern512_tq2_0_vec_dot_q8_K_vnni(k, out + r, xb + (size_t) r * row, y);
        }
        __asm__ volatile("" ::: "memory");
    }
}
