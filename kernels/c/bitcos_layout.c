// BITCOS <-> TQ2_0 blocks (bitcos_layout.h): the conversion of the load-time
// TQ2_0 layout, its row-index check, and the way back (for reading a converted
// weight's BITCOS form out again).
//
// Decoding reuses bitcos_row_codes (bitcos_codes.c: pdep with AVX2 + BMI2,
// scalar otherwise): a row becomes one code byte per weight, c = t + 1, which
// is exactly TQ2_0's 2-bit code; packing four of them per byte is then a
// shift-and-or over 32-byte runs, which compilers vectorise.

#include "bitcos_layout.h"
#include "bitcos_impl.h"
#include "bitcos_select.h"

#include <math.h>
#include <string.h>

// BITCOS_LAYOUT_SWAR_POPCOUNT: the portable popcount even where a builtin
// exists (the Go tests build it so, to test it).
static inline int bitcos_layout_popcount64(uint64_t v) {
#if (defined(__GNUC__) || defined(__clang__)) && !defined(BITCOS_LAYOUT_SWAR_POPCOUNT)
    return __builtin_popcountll(v);
#else
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (int) ((v * 0x0101010101010101ull) >> 56);
#endif
}

int64_t bitcos_check_rows(int64_t nrows, int n, const uint8_t * bitmap, const int32_t * rows, int64_t sign_bytes) {
    if (nrows > 0 && rows[0] != 0) {
        return 0;
    }
    const int64_t row_bytes = n / 8;
    for (int64_t r = 0; r < nrows; ++r) {
        int64_t nnz = 0;
        const uint8_t * b = bitmap + r * row_bytes;
        for (int64_t i = 0; i + 8 <= row_bytes; i += 8) {
            uint64_t v;
            memcpy(&v, b + i, 8);
            nnz += bitcos_layout_popcount64(v);
        }
        // in int64: a crafted index may hold any int32 values
        const int64_t len = (int64_t) rows[r + 1] - (int64_t) rows[r];
        if (len != (nnz + 7) / 8 || (int64_t) rows[r + 1] + 8 > sign_bytes) {
            return r;
        }
    }
    return -1;
}

void bitcos_row_to_tq2_0(int n, uint8_t * dst, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16,
                         float d32, uint8_t * codes) {
    const int bb = BITCOS_TQ2_0_BLOCK_SIZE(d16 == NULL);
    bitcos_row_codes(n, codes, bitmap, signs);
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * c = codes + b * BITCOS_QK_K;
        uint8_t * q = dst + b * bb;
        for (int h = 0; h < 2; ++h) {
            for (int j = 0; j < 32; ++j) {
                const uint8_t * ch = c + 128 * h + j;
                q[32 * h + j] = (uint8_t) (ch[0] | ch[32] << 2 | ch[64] << 4 | ch[96] << 6);
            }
        }
        if (d16) {
            memcpy(q + 64, &d16[b], 2);
        } else {
            memcpy(q + 64, &d32, 4);
        }
    }
}

int64_t bitcos_to_tq2_0(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                        const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, float d32, uint8_t * codes) {
    const int64_t bad = bitcos_check_rows(nrows, n, bitmap, rows, sign_bytes);
    if (bad >= 0) {
        return bad;
    }
    const int64_t nb = n / BITCOS_QK_K;
    const int64_t bb = BITCOS_TQ2_0_BLOCK_SIZE(d16 == NULL);
    for (int64_t r = 0; r < nrows; ++r) {
        bitcos_row_to_tq2_0(n, dst + r * nb * bb, bitmap + r * (n / 8), signs + rows[r], d16 ? d16 + r * nb : NULL, d32,
                            codes);
    }
    return -1;
}

int bitcos_row_from_tq2_0(int n, const uint8_t * src, int f32, uint8_t * bitmap, uint8_t * signs, uint16_t * d16,
                          float * d32) {
    const int bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    memset(bitmap, 0, (size_t) n / 8);
    memset(signs, 0, (size_t) n / 8);
    int pos = 0;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * q = src + b * bb;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            const int c = (q[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
            if (c == 1) {
                continue;
            }
            const int j = b * BITCOS_QK_K + e;
            bitmap[j >> 3] |= (uint8_t) (1u << (j & 7));
            if (c == 0) {
                signs[pos >> 3] |= (uint8_t) (1u << (pos & 7));
            }
            ++pos;
        }
        if (!f32) {
            memcpy(&d16[b], q + 64, 2);
        } else if (b == 0) {
            memcpy(d32, q + 64, 4);
        }
    }
    return (pos + 7) / 8;
}

void bitcos_row_presence_tq2_0(int n, const uint8_t * src, int f32, uint8_t * bitmap) {
    const int bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * q = src + b * bb;
        uint8_t * bm = bitmap + b * (BITCOS_QK_K / 8);
        // 8 bytes of qs: byte i holds codes of 4 weights at bits 2s, 2s+1.
        // absent = code 1 = lo & ~hi; present bit at 2s of byte i. Weight
        // 128h + 32s + 8jj + i is bit i of bitmap byte 16h + 4s + jj; the
        // multiply gathers bit 0 of each byte i into bit 56 + i (the eight
        // partial products land on distinct bits: no carries).
        for (int h = 0; h < 2; ++h) {
            for (int jj = 0; jj < 4; ++jj) {
                uint64_t v;
                memcpy(&v, q + 32 * h + 8 * jj, 8);
                const uint64_t present = ~(v & ~(v >> 1));
                for (int s = 0; s < 4; ++s) {
                    const uint64_t x = (present >> (2 * s)) & 0x0101010101010101ull;
                    bm[16 * h + 4 * s + jj] = (uint8_t) ((x * 0x0102040810204080ull) >> 56);
                }
            }
        }
    }
}

// The scalar reference of the one-column kernels of converted weights, in
// each float order (bitcos_select.h's enum bitcos_order; bitcos.h,
// bitcos_tq2order.c and bitcos_neon_tq2.c write them down). Per block, the
// integers are exact; with d = y.d * the block's d (one rounding):
//   x86:   8 lanes L_m = sum of c*q over E_m - bsums pairs,
//          acc[m] = fma(L_m, d, acc[m]); ggml's hsum_float_8 at the end
//   ARM:   sumf = fma(sumi, d, sumf), sumi = sum of t*q
//   exact: sumf = sumf + sumi * d (a rounded multiply, then a rounded add)
void bitcos_tq2_0_vec_dot_q8_K_ref(int n, float * s, const void * vx, int f32, int order, const void * vy) {
    const uint8_t * x = (const uint8_t *) vx;
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
    float sumf = 0.0f;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * xb = x + (size_t) b * bb;
        int32_t lane[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
        int32_t sumi = 0;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            const int32_t c = (xb[(e / 128) * 32 + e % 32] >> (2 * ((e % 128) / 32))) & 3;
            lane[(e & 31) >> 2] += c * y[b].qs[e];
            sumi += (c - 1) * y[b].qs[e];
        }
        const float d = y[b].d * bitcos_tq2_0_block_d(xb, f32);
        if (order == BITCOS_ORDER_TQ2_X86) {
            for (int m = 0; m < 8; ++m) {
                lane[m] -= (int32_t) y[b].bsums[2*m] + (int32_t) y[b].bsums[2*m + 1];
                acc[m] = fmaf((float) lane[m], d, acc[m]);
            }
        } else if (order == BITCOS_ORDER_TQ2_ARM) {
            sumf = fmaf((float) sumi, d, sumf);
        } else {
            float p = (float) sumi * d;
            BITCOS_FP_BARRIER(p);
            sumf = sumf + p;
        }
    }
    if (order == BITCOS_ORDER_TQ2_X86) {
        const float r0 = acc[0] + acc[4], r1 = acc[1] + acc[5], r2 = acc[2] + acc[6], r3 = acc[3] + acc[7];
        sumf = (r0 + r2) + (r1 + r3);
    }
    *s = sumf;
}
