//go:build cgo

// kernels/c sha256: 502b2de5e5a808eff59ba82382b8d29f2bddfd0936ce9b32b0508de973173046
// Test and benchmark helpers: whole GEMVs in C, so that a Go benchmark does
// not pay one cgo call per row.
#include "gemv.h"

static bitcos_vec_dot_t ckern_fn(int variant) {
    switch (variant) {
        case CKERN_GENERIC:     return bitcos_vec_dot_q8_K_generic;
        case CKERN_AVX2:        return bitcos_vec_dot_q8_K_avx2;
        case CKERN_AVX2_NOPDEP: return bitcos_vec_dot_q8_K_avx2_nopdep;
        case CKERN_AVX512_TWIN: return bitcos_vec_dot_q8_K_avx512_twin;
        case CKERN_TQ2ORDER:    return bitcos_vec_dot_q8_K_tq2order;
        case CKERN_AVX2_TQ2:    return bitcos_vec_dot_q8_K_avx2_tq2;
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
