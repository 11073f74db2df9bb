//go:build cgo

// Test and benchmark helpers: whole GEMVs in C, so that a Go benchmark does
// not pay one cgo call per row.
#include "gemv.h"
#include <stdlib.h>
#include <string.h>

// 1 when the compiler is GCC, whose target pragmas the shims rely on.
int ckern_gcc(void) {
#if defined(__GNUC__) && !defined(__clang__)
    return 1;
#else
    return 0;
#endif
}

static bitcos_vec_dot_t ckern_fn(int variant) {
    switch (variant) {
        case CKERN_GENERIC:     return bitcos_vec_dot_q8_K_generic;
        case CKERN_TQ2ORDER:    return bitcos_vec_dot_q8_K_tq2order;
        case CKERN_AVX2_TQ2:    return bitcos_vec_dot_q8_K_avx2_tq2;
        case CKERN_AVX2_NOPDEP_TQ2: return bitcos_vec_dot_q8_K_avx2_nopdep_tq2;
    }
    return 0;
}

// repeat != 0: every output comes from row 0 (an L1-resident loop).
void ckern_bitcos_gemv(int variant, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs,
                       const uint32_t * off, const uint16_t * d16, float d32, const void * y, float * out) {
    const bitcos_vec_dot_t fn = ckern_fn(variant);
    for (int r = 0; r < rows; ++r) {
        const int i = repeat ? 0 : r;
        fn(k, out + r, bitmap + (size_t) i * (k / 8), signs + off[i],
           d16 ? d16 + (size_t) i * (k / 256) : 0, d32, y);
        __asm__ volatile("" ::: "memory"); // keep repeated calls
    }
}

void ckern_tq2_gemv(int variant, int k, int rows, int repeat, const void * x, const void * y, float * out) {
    const tq2_block * xb = (const tq2_block *) x;
    for (int r = 0; r < rows; ++r) {
        const tq2_block * row = xb + (size_t) (repeat ? 0 : r) * (k / 256);
        __asm__ volatile("" ::: "memory");
        switch (variant) {
            case CKERN_TQ2_GENERIC:    tq2_vec_dot_q8_K_generic(k, out + r, row, y); break;
            case CKERN_TQ2_AVX2:       tq2_vec_dot_q8_K_avx2(k, out + r, row, y); break;
            case CKERN_TQ2_AVX2_EXACT: tq2_vec_dot_q8_K_avx2_exact(k, out + r, row, y); break;
            case CKERN_TQ2_AVX2_GGML:  tq2_vec_dot_q8_K_avx2_ggml(k, out + r, row, y); break;
        }
    }
}

// rows rows of k weights decoded to out (rows * k floats).
void ckern_dequantize_rows(int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                           const uint16_t * d16, float d32, float * out) {
    for (int r = 0; r < rows; ++r) {
        bitcos_dequantize_row(k, out + (size_t) r * k, bitmap + (size_t) r * (k / 8), signs + off[r],
                              d16 ? d16 + (size_t) r * (k / 256) : NULL, d32);
    }
}

void bitcos_row_codes_generic(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs);
void bitcos_codes_vec_dot_q8_K_generic(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * y);

// Every row decoded to codes (into a buffer of k bytes) and dotted with y, by
// the AVX2 build (avx2 != 0) or the scalar one of bitcos_codes.c.
void ckern_codes_gemv(int avx2, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                      const uint16_t * d16, float d32, const void * y, float * out) {
    uint8_t * c = malloc((size_t) k);
    for (int r = 0; r < rows; ++r) {
        const uint8_t * bm = bitmap + (size_t) r * (k / 8);
        const uint16_t * d = d16 ? d16 + (size_t) r * (k / 256) : NULL;
        memset(c, 0xee, (size_t) k); // every byte must be written
        if (avx2) {
            bitcos_row_codes(k, c, bm, signs + off[r]);
            bitcos_codes_vec_dot_q8_K(k, out + r, c, d, d32, y);
        } else {
            bitcos_row_codes_generic(k, c, bm, signs + off[r]);
            bitcos_codes_vec_dot_q8_K_generic(k, out + r, c, d, d32, y);
        }
    }
    free(c);
}


void bitcos_codes_vec_dot_q8_K_x4_generic(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * y);

// Every row decoded to codes and dotted with four columns at once
// (bitcos_codes_vec_dot_q8_K_x4): out[4*r + j] for column j.
void ckern_codes_gemv4(int avx2, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                       const uint16_t * d16, float d32, const void * y0, const void * y1, const void * y2, const void * y3, float * out) {
    uint8_t * c = malloc((size_t) k);
    const void * ys[4] = { y0, y1, y2, y3 };
    for (int r = 0; r < rows; ++r) {
        const uint16_t * d = d16 ? d16 + (size_t) r * (k / 256) : NULL;
        if (avx2) {
            bitcos_row_codes(k, c, bitmap + (size_t) r * (k / 8), signs + off[r]);
            bitcos_codes_vec_dot_q8_K_x4(k, out + 4*r, c, d, d32, ys);
        } else {
            bitcos_row_codes_generic(k, c, bitmap + (size_t) r * (k / 8), signs + off[r]);
            bitcos_codes_vec_dot_q8_K_x4_generic(k, out + 4*r, c, d, d32, ys);
        }
    }
    free(c);
}

void bitcos_q8_K_perm_clmul_xmm(int n, int8_t * qp, const void * y);
void bitcos_q8_K_perm_clmul_generic(int n, int8_t * qp, const void * y);
void bitcos_vec_dot_q8_K_avx2_clmul_xmm(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                        const uint16_t * d16, float d32, const void * y, const int8_t * qp);
void bitcos_vec_dot_q8_K_avx2_clmul_generic(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                            const uint16_t * d16, float d32, const void * y, const int8_t * qp);
int bitcos_have_avx2_clmul_xmm(void);

int ckern_clmul_compiled(int build) {
    switch (build) {
        case CKERN_CLMUL_YMM: return bitcos_have_avx2_clmul();
        case CKERN_CLMUL_XMM: return bitcos_have_avx2_clmul_xmm();
    }
    return 1;
}

// The permuted activation copy of the clmul kernel, by one of its builds
// (qp: BITCOS_CLMUL_QP_SIZE(k) bytes).
void ckern_clmul_perm(int build, int k, int8_t * qp, const void * y) {
    switch (build) {
        case CKERN_CLMUL_YMM: bitcos_q8_K_perm_clmul(k, qp, y); break;
        case CKERN_CLMUL_XMM: bitcos_q8_K_perm_clmul_xmm(k, qp, y); break;
        default:              bitcos_q8_K_perm_clmul_generic(k, qp, y); break;
    }
}

// A GEMV with the clmul kernel: the column permuted once, then every row
// (repeat != 0: every output from row 0, as ckern_bitcos_gemv).
void ckern_clmul_gemv(int build, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                      const uint16_t * d16, float d32, const void * y, float * out) {
    int8_t * qp = malloc(BITCOS_CLMUL_QP_SIZE(k));
    ckern_clmul_perm(build, k, qp, y);
    for (int r = 0; r < rows; ++r) {
        const int i = repeat ? 0 : r;
        const uint8_t * bm = bitmap + (size_t) i * (k / 8);
        const uint16_t * d = d16 ? d16 + (size_t) i * (k / 256) : NULL;
        switch (build) {
            case CKERN_CLMUL_YMM: bitcos_vec_dot_q8_K_avx2_clmul(k, out + r, bm, signs + off[i], d, d32, y, qp); break;
            case CKERN_CLMUL_XMM: bitcos_vec_dot_q8_K_avx2_clmul_xmm(k, out + r, bm, signs + off[i], d, d32, y, qp); break;
            default:              bitcos_vec_dot_q8_K_avx2_clmul_generic(k, out + r, bm, signs + off[i], d, d32, y, qp); break;
        }
        __asm__ volatile("" ::: "memory"); // keep repeated calls
    }
    free(qp);
}

void bitcos_tq2_0_vec_dot_q8_K_avx2_vnni(int n, float * s, const void * x, const void * y);
void bitcos_tq2_0_f32_vec_dot_q8_K_avx2_vnni(int n, float * s, const void * x, const void * y);

void ckern_tq2_0_blocks_gemv(int kind, int order, int k, int rows, const void * x, int f32, const void * y, float * out) {
    const uint8_t * xb = (const uint8_t *) x;
    const size_t row = (size_t) (k / 256) * (f32 ? 68 : 66);
    for (int r = 0; r < rows; ++r) {
        const void * xr = xb + (size_t) r * row;
        switch (kind) {
            case 0:
                if (f32) { bitcos_tq2_0_f32_vec_dot_q8_K_avx2(k, out + r, xr, y); } else { bitcos_tq2_0_vec_dot_q8_K_avx2(k, out + r, xr, y); }
                break;
            case 1:
                if (f32) { bitcos_tq2_0_f32_vec_dot_q8_K_avx2_vnni(k, out + r, xr, y); } else { bitcos_tq2_0_vec_dot_q8_K_avx2_vnni(k, out + r, xr, y); }
                break;
            default:
                bitcos_tq2_0_vec_dot_q8_K_ref(k, out + r, xr, f32, order, y);
                break;
        }
        __asm__ volatile("" ::: "memory");
    }
}

void ckern_q2_0_gemv(int k, int rows, const void * x, const void * y, float * out) {
    const q2_block * xb = (const q2_block *) x;
    for (int r = 0; r < rows; ++r) {
        q2_vec_dot_q8_0(k, out + r, xb + (size_t) r * (k / 64), (const q8_0_block *) y);
        __asm__ volatile("" ::: "memory");
    }
}

void ckern_bitcos_q2_0_gemv(int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                            const uint16_t * d64, const void * y, float * out) {
    // one row's blocks, then its codes (bitcos_row_to_q2_0's scratch), as the
    // native layout's per-thread work buffer
    uint8_t * blocks = (uint8_t *) malloc((size_t) (k / 64) * sizeof(q2_block) + (size_t) k);
    if (blocks == NULL) {
        abort();
    }
    uint8_t * codes = blocks + (size_t) (k / 64) * sizeof(q2_block);
    for (int r = 0; r < rows; ++r) {
        bitcos_row_to_q2_0(k, blocks, bitmap + (size_t) r * (k / 8), signs + off[r], d64 + (size_t) r * (k / 64), 64, codes);
        q2_vec_dot_q8_0(k, out + r, (const q2_block *) blocks, (const q8_0_block *) y);
        __asm__ volatile("" ::: "memory");
    }
    free(blocks);
}
