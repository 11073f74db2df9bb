// AVX2 + BMI2 + PCLMULQDQ (+FMA, F16C) BITCOS x Q8_K dot product in the float
// order of ggml's x86 TQ2_0 kernel (bitcos_tq2fast.h, bitcos_tq2order.c),
// about half the vector work of bitcos_avx2_tq2.c per weight. It reads the
// activation column in a permuted copy (bitcos_q8_K_perm_clmul), made once
// per column and shared by every row: a GEMV pays it once per K weights of
// the column, not per row.
//
// Why: bitcos_avx2_tq2.c spreads the presence bits and the deposited sign
// bits to bytes separately (vpshufb, and, compare: 3 ops per 32 weights and
// per bit plane) and then combines them; 10 vector ops per 32 weights against
// TQ2_0's 4. Here the two planes are interleaved into 2-bit codes at once, as
// TQ2_0 stores them, with carry-less squaring: clmul(x, x) moves bit i of a
// 64-bit word to bit 2i. With m a bitmap word and nx the complement of its
// deposited signs (~neg, all 64 lanes),
//     C = clmul(m, m) ^ (clmul(nx, nx) << 1)
// holds in bits 2i, 2i+1 the code of weight i: P + 2 * !N = t + 2
// (absent 2, positive 3, negative 1). Then, as in TQ2_0, a shift and an and
// per 32 weights give the code bytes, and vpmaddubsw multiplies them with the
// activations: 4 vector ops per 32 weights plus about 2 per 32 for the
// squaring, the byte shuffle and the block's sums.
//
// The byte order. Byte b of C (one 128-bit lane, one 64-bit word w: chunks
// 2w and 2w+1 of 32 weights) holds the 4 weights 4(b%8)..4(b%8)+3 of chunk
// 2w + b/8: the group E_{b%8} of TQ2_0's lane order (lane m sums the elements
// e with e%32 in [4m, 4m+4)). vpmaddubsw adds byte pairs, so the pairs must
// stay in one group: a vpshufb per lane interleaves the two chunks,
//     D = [C0 C8 C1 C9 C2 C10 ... C7 C15],
// so that 16-bit lane l of a lane holds group E_l, whatever the shift s (slot
// s of each byte: weight 4(b%8)+s). The activations are permuted to match
// (bitcos_q8_K_perm_clmul). Per 256-block the two registers cover the words
// {0, 2} and {1, 3} (one clmul of each 128-bit lane per register), 16-bit
// lanes accumulate over the block (8 pair sums of at most 2*3*128: no
// overflow), and at the block's end lanes l and l+8 are widened and added:
// int32 lane m = sum over E_m of (t+2)*q, exact. Subtracting the copy's
// correction for lane m (sum over E_m of q, plus bsums[2m] + bsums[2m+1])
// leaves sum over E_m of (t+1)*q minus the bsums pair: TQ2_0's lane, the
// same integer. From there it is bitcos_avx2_tq2.c's float step: the lanes
// converted and fused into the float accumulator with vfmadd231ps (the block
// scale y.d * d_b, taken 8 blocks at a time from the copy's y.d and the row's
// fp16 scales); at the end ggml's hsum_float_8.
//
// The codes of block b+1 (sign deposit, move to vector registers, squaring:
// a long dependency chain) are made while block b is dotted; without that
// software pipelining the kernel was no faster than avx2_tq2.
//
// With VPCLMULQDQ (Ice Lake, Zen 3 and later) the squaring works on both
// 128-bit lanes at once; with PCLMULQDQ only it takes two xmm clmuls and an
// insert per register.

#include "bitcos_impl.h"
#include "bitcos_tq2fast.h"

#include <string.h>

// The column copy (BITCOS_CLMUL_QP_SIZE(n) bytes): per 256-block
// BITCOS_CLMUL_QP_BLOCK bytes, the 256 activations permuted, then 8 int32
// (little-endian) corrections, lane m the sum over E_m of q plus bsums[2m] +
// bsums[2m+1]; after the last block the n/256 block scales y[b].d as floats,
// so that a row's kernel multiplies 8 of them by its 8 fp16 scales at once
// (the same float products as one at a time).
// The permutation: output byte
//     128 G + 32 s + 16 h + 4 k + r        (G, h in 0..1, s, k, r in 0..3)
// is activation 32 c + 4 (2k + r/2) + s of chunk c = 2 (G + 2h) + r%2.
static inline int bitcos_perm_clmul_src(int o) {
    const int G = o >> 7, s = (o >> 5) & 3, h = (o >> 4) & 1, k = (o >> 2) & 3, r = o & 3;
    const int c = 2 * (G + 2 * h) + (r & 1);
    return 32 * c + 4 * (2 * k + (r >> 1)) + s;
}

#if BITCOS_AVX2_CLMUL_SIMD

#include "bitcos_tq2_step.h"

int bitcos_have_avx2_clmul(void) { return 1; }

// One block of activations permuted (see bitcos_perm_clmul_src): per chunk, a
// 4x4 byte transpose in each lane and a dword permute put the elements
// 4i + s (i = 0..7) in qword s; chunks 2w and 2w+1 are byte-interleaved per
// qword, and the 128-bit halves of words G and G+2 are paired.
static inline void bitcos_perm_clmul_block(int8_t * qp, const int8_t * q) {
    const __m256i tr  = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
                                         0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i dw  = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i u[4], v[4];
    for (int w = 0; w < 4; ++w) {
        const __m256i a = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *) (q + 64*w)), tr), dw);
        const __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *) (q + 64*w + 32)), tr), dw);
        u[w] = _mm256_unpacklo_epi8(a, b); // [s = 0 | s = 2]
        v[w] = _mm256_unpackhi_epi8(a, b); // [s = 1 | s = 3]
    }
    for (int G = 0; G < 2; ++G) {
        _mm256_storeu_si256((__m256i *) (qp + 128*G +  0), _mm256_permute2x128_si256(u[G], u[G + 2], 0x20));
        _mm256_storeu_si256((__m256i *) (qp + 128*G + 32), _mm256_permute2x128_si256(v[G], v[G + 2], 0x20));
        _mm256_storeu_si256((__m256i *) (qp + 128*G + 64), _mm256_permute2x128_si256(u[G], u[G + 2], 0x31));
        _mm256_storeu_si256((__m256i *) (qp + 128*G + 96), _mm256_permute2x128_si256(v[G], v[G + 2], 0x31));
    }
}

void bitcos_q8_K_perm_clmul(int n, int8_t * qp, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        int8_t * o = qp + b * BITCOS_CLMUL_QP_BLOCK;
        bitcos_perm_clmul_block(o, y[b].qs);
        // int32 lane m: sum over E_m of q (16-bit pair sums of the 8 chunks,
        // at most 8*254), plus bsums[2m] + bsums[2m+1]
        __m256i e = _mm256_setzero_si256();
        for (int c = 0; c < 8; ++c) {
            e = _mm256_add_epi16(e, _mm256_maddubs_epi16(ones8, _mm256_loadu_si256((const __m256i *) (y[b].qs + 32*c))));
        }
        const __m256i bs = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) y[b].bsums), ones16);
        _mm256_storeu_si256((__m256i *) (o + BITCOS_QK_K), _mm256_add_epi32(_mm256_madd_epi16(e, ones16), bs));
        memcpy(qp + (size_t) (n / BITCOS_QK_K) * BITCOS_CLMUL_QP_BLOCK + 4*b, &y[b].d, sizeof(float));
    }
}

// Carry-less squares of the words of x: lo = [sq x0 | sq x2], hi = [sq x1 | sq x3].
BITCOS_INLINE void bitcos_clmul_squares(__m256i x, __m256i * lo, __m256i * hi) {
#if defined(__VPCLMULQDQ__)
    *lo = _mm256_clmulepi64_epi128(x, x, 0x00);
    *hi = _mm256_clmulepi64_epi128(x, x, 0x11);
#else
    const __m128i x0 = _mm256_castsi256_si128(x), x1 = _mm256_extracti128_si256(x, 1);
    *lo = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_clmulepi64_si128(x0, x0, 0x00)), _mm_clmulepi64_si128(x1, x1, 0x00), 1);
    *hi = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_clmulepi64_si128(x0, x0, 0x11)), _mm_clmulepi64_si128(x1, x1, 0x11), 1);
#endif
}

// 16-bit pair sums of one register of codes D (two words) with its 128
// permuted activations, slots s = 0..3.
BITCOS_INLINE __m256i bitcos_clmul_dot128(__m256i acc, __m256i d, const int8_t * qp) {
    const __m256i m3 = _mm256_set1_epi8(3);
    const __m256i p0 = _mm256_maddubs_epi16(_mm256_and_si256(d, m3), _mm256_loadu_si256((const __m256i *) (qp)));
    const __m256i p1 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(d, 2), m3), _mm256_loadu_si256((const __m256i *) (qp + 32)));
    const __m256i p2 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(d, 4), m3), _mm256_loadu_si256((const __m256i *) (qp + 64)));
    const __m256i p3 = _mm256_maddubs_epi16(_mm256_and_si256(_mm256_srli_epi16(d, 6), m3), _mm256_loadu_si256((const __m256i *) (qp + 96)));
    return _mm256_add_epi16(acc, _mm256_add_epi16(_mm256_add_epi16(p0, p1), _mm256_add_epi16(p2, p3)));
}

// The codes of one 256-block (bitmap bm, the signs from bit *pos on): d0
// holds words 0 and 2, d1 words 1 and 3, byte-interleaved per lane.
BITCOS_INLINE void bitcos_clmul_codes(const uint8_t * bm, const uint8_t * signs, uint64_t * pos, uint64_t three,
                                      __m256i * d0, __m256i * d1) {
    const __m256i ilv = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15,
                                         0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    const uint64_t n0 = bitcos_pdep_next_neg(signs, pos, bitcos_load_u64(bm +  0), three);
    const uint64_t n1 = bitcos_pdep_next_neg(signs, pos, bitcos_load_u64(bm +  8), three);
    const uint64_t n2 = bitcos_pdep_next_neg(signs, pos, bitcos_load_u64(bm + 16), three);
    const uint64_t n3 = bitcos_pdep_next_neg(signs, pos, bitcos_load_u64(bm + 24), three);
    // the deposited signs, complemented (one vector op for the four words)
    const __m256i nx = _mm256_xor_si256(_mm256_set_epi64x((long long) n3, (long long) n2, (long long) n1, (long long) n0),
                                        _mm256_set1_epi8(-1));
    __m256i pm0, pm1, pn0, pn1;
    bitcos_clmul_squares(_mm256_loadu_si256((const __m256i *) bm), &pm0, &pm1);
    bitcos_clmul_squares(nx, &pn0, &pn1);
    *d0 = _mm256_shuffle_epi8(_mm256_xor_si256(pm0, _mm256_add_epi64(pn0, pn0)), ilv);
    *d1 = _mm256_shuffle_epi8(_mm256_xor_si256(pm1, _mm256_add_epi64(pn1, pn1)), ilv);
}

// One block's codes dotted with its permuted activations, into acc.
BITCOS_INLINE __m256 bitcos_clmul_block(__m256 acc, __m256i d0, __m256i d1, const int8_t * qp, const float * d) {
    __m256i a = _mm256_setzero_si256();
    a = bitcos_clmul_dot128(a, d0, qp);
    a = bitcos_clmul_dot128(a, d1, qp + 128);
    // lane m: sum over E_m of (t+2)*q, minus the column's correction
    // (sum over E_m of q, plus the bsums pair): TQ2_0's lane L_m
    const __m256i L = _mm256_sub_epi32(_mm256_add_epi32(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(a)),
                                                        _mm256_cvtepi16_epi32(_mm256_extracti128_si256(a, 1))),
                                       _mm256_loadu_si256((const __m256i *) (qp + BITCOS_QK_K)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), _mm256_broadcast_ss(d), acc);
}

// d[i] = y[b0+i].d * scale of block b0+i for i < cnt (8 at a time when it can).
BITCOS_INLINE void bitcos_clmul_scales(float * d, const float * yd, const uint16_t * d16, float d32, int b0, int cnt) {
    if (cnt == 8) {
        const __m256 s = d16 ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (d16 + b0))) : _mm256_set1_ps(d32);
        _mm256_storeu_ps(d, _mm256_mul_ps(_mm256_loadu_ps(yd + b0), s));
        return;
    }
    for (int i = 0; i < cnt; ++i) {
        d[i] = yd[b0 + i] * (d16 ? bitcos_fp16_to_fp32(d16[b0 + i]) : d32);
    }
}

void bitcos_vec_dot_q8_K_avx2_clmul(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                    const uint16_t * d16, float d32, const void * vy, const int8_t * qp) {
    (void) vy; // everything the kernel needs of the column is in qp
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    __m256 acc = _mm256_setzero_ps();

    // Software-pipelined: the codes of block b+1 (the scalar sign deposit,
    // the move to vector registers and the squaring, a long dependency
    // chain) are made while block b is dotted.
    // the block scales y[b].d * d_b, 8 blocks at a time
    const float * yd = (const float *) (qp + (size_t) nb * BITCOS_CLMUL_QP_BLOCK);
    float d[8];

    __m256i d0, d1;
    bitcos_clmul_codes(bitmap, signs, &pos, three, &d0, &d1);
    for (int b = 0; b + 1 < nb; ++b) {
        BITCOS_PREFETCH(bitmap + b*32);
        BITCOS_PREFETCH(signs + (pos >> 3));
        if ((b & 7) == 0) {
            bitcos_clmul_scales(d, yd, d16, d32, b, nb - b < 8 ? nb - b : 8);
        }
        __m256i n0, n1;
        bitcos_clmul_codes(bitmap + (b + 1)*32, signs, &pos, three, &n0, &n1);
        acc = bitcos_clmul_block(acc, d0, d1, qp + b*BITCOS_CLMUL_QP_BLOCK, &d[b & 7]);
        d0 = n0;
        d1 = n1;
    }
    if (((nb - 1) & 7) == 0) {
        bitcos_clmul_scales(d, yd, d16, d32, nb - 1, 1);
    }
    acc = bitcos_clmul_block(acc, d0, d1, qp + (nb - 1)*BITCOS_CLMUL_QP_BLOCK, &d[(nb - 1) & 7]);

    *s = bitcos_tq2_hsum(acc);
}

#else

int bitcos_have_avx2_clmul(void) { return 0; }

void bitcos_q8_K_perm_clmul(int n, int8_t * qp, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        int8_t * o = qp + b * BITCOS_CLMUL_QP_BLOCK;
        for (int i = 0; i < BITCOS_QK_K; ++i) {
            o[i] = y[b].qs[bitcos_perm_clmul_src(i)];
        }
        for (int m = 0; m < 8; ++m) {
            int32_t corr = y[b].bsums[2*m] + y[b].bsums[2*m + 1];
            for (int e = 0; e < BITCOS_QK_K; ++e) {
                corr += (e % 32) / 4 == m ? y[b].qs[e] : 0;
            }
            memcpy(o + BITCOS_QK_K + 4*m, &corr, sizeof(corr));
        }
        memcpy(qp + (size_t) (n / BITCOS_QK_K) * BITCOS_CLMUL_QP_BLOCK + 4*b, &y[b].d, sizeof(float));
    }
}

void bitcos_vec_dot_q8_K_avx2_clmul(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                    const uint16_t * d16, float d32, const void * vy, const int8_t * qp) {
    (void) qp;
    bitcos_vec_dot_q8_K_tq2order(n, s, bitmap, signs, d16, d32, vy);
}

#endif
