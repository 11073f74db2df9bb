// Multi-row table-lookup BITCOS x Q8_K kernel (16 rows x 1 column), AVX2 +
// BMI2 + FMA + F16C. See lut.h and REPORT.md.
//
// Per 256-block b and 16 rows:
//  1. scalar: per row and 64-bit bitmap word w, neg = pdep(next popcount(w)
//     sign bits, w) (bitcos_pdep_next_neg); w and neg are stored to a scratch
//     buffer, laid out so that one 32-byte load holds
//     [w of slots 2a, 2a+1 | neg of slots 2a, 2a+1]. (Done one block ahead.)
//  2. byte transpose (4 unpack stages, 8 ymm per word): X[i][k] = one ymm
//     whose lane 0 holds byte k of word i of w for the 16 rows, lane 1 the
//     same byte of neg.
//  3. per lane m (0..7): the 8 groups g = m + 8j of the block are
//     (word i, byte k in {m/2, m/2+4}, nibble m%2). Index = that nibble of X;
//     vpshufb with the group's l and h tables (broadcast to both lanes, so
//     one shuffle serves w of 16 rows and neg of 16 rows); byte accumulators
//     (8 additions of 0..31: at most 248, no overflow).
//  4. per lane m: sum t*q = sum T[w] - 2 sum T[neg]
//       = (Lw + 32 Hw) - 2 (Ln + 32 Hn) - 32*128 + 64*128
//     with one vpmaddubsw per 8 rows (lane 0 weights (1, 32), lane 1 (-2, -64)),
//     + corr[m] (int16, no overflow: |L| <= 12192), widened to int32 lanes,
//     converted, and fused into the float accumulator of (row, m):
//     acc = fma((float) L, y.d * d_b, acc), as ggml's TQ2_0 kernel.
//  5. per row ggml's hsum_float_8 order, vectorised across rows.
//
// Code generation matters a lot (measured on Ice Lake, gcc 12 -O2): the
// transpose must be fully unrolled in registers (#pragma GCC unroll on every
// small loop; without them gcc -O2 keeps in[]/out[] in memory: -25%), and the
// scalar part lives in its own noinline function so that its registers are
// not spilled around the vector part (-6%). Interleaving the scalar part of
// the next block with the lane loop (two rows per lane m) was 35% slower
// (attic/lut_v2v3.c), a 32-row variant sharing the table loads
// (bitcos_vec_dot_lut32) 10% slower than two 16-row calls.

#include "lut.h"
#include "bitcos_impl.h"

#include <immintrin.h>
#include <stdalign.h>
#include <string.h>

#if !(defined(__AVX2__) && defined(__BMI2__) && defined(__F16C__) && defined(__FMA__))
#error "lut.c needs -mavx2 -mbmi2 -mfma -mf16c"
#endif

// ---------------------------------------------------------------- precompute

void bitcos_lut_prep(int n, const void * vy, bitcos_lut_block * out) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    // 16-bit lane idx = table entry idx; bytes (bit0, bit1) and (bit2, bit3) of idx
    alignas(32) uint8_t m01[32], m23[32];
    for (int idx = 0; idx < 16; ++idx) {
        m01[2*idx] = idx & 1; m01[2*idx + 1] = (idx >> 1) & 1;
        m23[2*idx] = (idx >> 2) & 1; m23[2*idx + 1] = (idx >> 3) & 1;
    }
    const __m256i M01 = _mm256_load_si256((const __m256i *) m01);
    const __m256i M23 = _mm256_load_si256((const __m256i *) m23);
    const __m256i c31 = _mm256_set1_epi16(31), c16 = _mm256_set1_epi16(16);
    for (int b = 0; b < nb; ++b) {
        const int8_t * q = y[b].qs;
        for (int g = 0; g < 64; ++g) {
            int16_t w01, w23;
            memcpy(&w01, q + 4*g, 2);
            memcpy(&w23, q + 4*g + 2, 2);
            const __m256i T = _mm256_add_epi16(_mm256_maddubs_epi16(M01, _mm256_set1_epi16(w01)),
                                               _mm256_maddubs_epi16(M23, _mm256_set1_epi16(w23)));
            const __m256i l = _mm256_and_si256(T, c31);
            const __m256i h = _mm256_add_epi16(_mm256_srai_epi16(T, 5), c16);
            const __m256i p = _mm256_permute4x64_epi64(_mm256_packus_epi16(l, h), 0xD8);
            _mm256_storeu_si256((__m256i *) out[b].tab[g], p);
        }
        // corr: sum over E_m of q, vectorised: 8 rows of 32 bytes summed as int16
        __m256i s16 = _mm256_setzero_si256(); // elements 0..15: p = 0..15; via two halves
        __m256i s16h = _mm256_setzero_si256();
        for (int r = 0; r < 8; ++r) {
            const __m256i v = _mm256_loadu_si256((const __m256i *) (q + 32*r));
            s16  = _mm256_add_epi16(s16,  _mm256_cvtepi8_epi16(_mm256_castsi256_si128(v)));
            s16h = _mm256_add_epi16(s16h, _mm256_cvtepi8_epi16(_mm256_extracti128_si256(v, 1)));
        }
        alignas(32) int16_t a[32];
        _mm256_store_si256((__m256i *) a, s16);
        _mm256_store_si256((__m256i *) (a + 16), s16h);
        for (int m = 0; m < 8; ++m) {
            const int sum = a[4*m] + a[4*m + 1] + a[4*m + 2] + a[4*m + 3];
            out[b].corr[m] = (int16_t) (4096 + sum - y[b].bsums[2*m] - y[b].bsums[2*m + 1]);
        }
        for (int m = 8; m < 16; ++m) out[b].corr[m] = 0;
    }
}

// ---------------------------------------------------------------- transpose

// 8 ymm, lane L of v[a] = 2 slots x 8 bytes (row-major) -> lane L of out[j] =
// 16 slots x one byte; four unpack stages, v[a] paired with v[a+4].
#define LUT_STAGE(v, o, LO, HI) do { \
    o[0] = LO(v[0], v[4]); o[1] = HI(v[0], v[4]); \
    o[2] = LO(v[1], v[5]); o[3] = HI(v[1], v[5]); \
    o[4] = LO(v[2], v[6]); o[5] = HI(v[2], v[6]); \
    o[6] = LO(v[3], v[7]); o[7] = HI(v[3], v[7]); } while (0)

BITCOS_INLINE void lut_transpose8(const __m256i in[8], __m256i out[8]) {
    __m256i a[8], b[8];
    LUT_STAGE(in, a, _mm256_unpacklo_epi8,  _mm256_unpackhi_epi8);
    LUT_STAGE(a,  b, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16);
    LUT_STAGE(b,  a, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32);
    LUT_STAGE(a, out, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64);
}

// Maps found by running the transpose on labelled bytes (once):
//   lut_kmap[j]    = the byte k (0..7) output j holds
//   lut_slot[r]    = the scratch slot (0..15) whose bytes land where row r's
//                    int32 lane comes out of the epilogue
static int lut_kmap[8];
static int lut_slot[16];
static int lut_ready;

static void lut_init(void) {
    alignas(32) uint8_t buf[8][32];
    __m256i in[8], out[8];
    alignas(32) uint8_t o[8][32];
    // k labels
    for (int a = 0; a < 8; ++a) for (int t = 0; t < 32; ++t) buf[a][t] = (uint8_t) (t & 7);
    for (int a = 0; a < 8; ++a) in[a] = _mm256_load_si256((const __m256i *) buf[a]);
    lut_transpose8(in, out);
    for (int j = 0; j < 8; ++j) _mm256_store_si256((__m256i *) o[j], out[j]);
    for (int j = 0; j < 8; ++j) lut_kmap[j] = o[j][0];
    for (int j = 0; j < 8; ++j) if (lut_kmap[j] != j) __builtin_trap();
    // slot labels: slot s = 2a + (t%16)/8 in both lanes
    for (int a = 0; a < 8; ++a) for (int t = 0; t < 32; ++t) buf[a][t] = (uint8_t) (2*a + ((t & 15) >> 3));
    for (int a = 0; a < 8; ++a) in[a] = _mm256_load_si256((const __m256i *) buf[a]);
    lut_transpose8(in, out);
    for (int j = 0; j < 8; ++j) _mm256_store_si256((__m256i *) o[j], out[j]);
    // byte position p (0..15 of lane 0) holds slot o[j][p]; epilogue: row q <-> position
    // 2q (q < 8, even int16 elements) or 2(q-8)+1 (odd elements)
    for (int q = 0; q < 16; ++q) {
        const int p = q < 8 ? 2*q : 2*(q - 8) + 1;
        lut_slot[q] = o[0][p];
    }
    lut_ready = 1;
}

__attribute__((constructor)) static void lut_ctor(void) { lut_init(); }

// ---------------------------------------------------------------- kernel

// Scratch: per word i, 8 ymm; ymm a = [w slot 2a | w slot 2a+1 | neg slot 2a | neg slot 2a+1].
typedef struct {
    alignas(32) uint8_t S[4 * 256];
    alignas(32) uint16_t dh[16];
} lut_stage;

#ifdef LUT_MCA // llvm-mca region markers (analysis builds only)
#define LUT_MCA_MARK(t) __asm__ volatile("# LLVM-MCA-" t ::: "memory")
#else
#define LUT_MCA_MARK(t) ((void) 0)
#endif

#ifndef LUT_PF_AHEAD
#define LUT_PF_AHEAD 16384 // measured best of 4-16 KiB (DRAM GEMV, 16 interleaved rows)
#endif
#define LUT_PREFETCH(p) __builtin_prefetch((const char *) (p) + LUT_PF_AHEAD, 0, 3)
#ifndef LUT_PF_MASK
#define LUT_PF_MASK 1 // software prefetch on every other block (bitmap: 32 B per block)
#endif

typedef struct {
    const uint8_t  * bm;  // row bitmap
    const uint8_t  * sg;  // row sign stream
    const uint16_t * d;   // row fp16 scales
    uint64_t pos;         // next sign bit
    uint64_t off;         // byte offset of the row's slot in lut_stage.S[i]
} lut_row;

static __attribute__((noinline)) void lut_scalar_block(lut_stage * st, int b, lut_row * rows, uint64_t three) {
    for (int r = 0; r < BITCOS_LUT_ROWS; ++r) {
        lut_row * R = &rows[r];
        const uint8_t * bm = R->bm + b*32;
        const uint8_t * sg = R->sg;
        uint64_t p = R->pos;
#ifndef LUT_NOPF
        if ((b & LUT_PF_MASK) == 0) {
            LUT_PREFETCH(bm);
            LUT_PREFETCH(sg + (p >> 3));
        }
#endif
        uint8_t * dst = st->S + R->off;
        const uint64_t w0 = bitcos_load_u64(bm), w1 = bitcos_load_u64(bm + 8), w2 = bitcos_load_u64(bm + 16), w3 = bitcos_load_u64(bm + 24);
        const uint64_t n0 = bitcos_pdep_next_neg(sg, &p, w0, three);
        memcpy(dst + 0*256, &w0, 8); memcpy(dst + 0*256 + 16, &n0, 8);
        const uint64_t n1 = bitcos_pdep_next_neg(sg, &p, w1, three);
        memcpy(dst + 1*256, &w1, 8); memcpy(dst + 1*256 + 16, &n1, 8);
        const uint64_t n2 = bitcos_pdep_next_neg(sg, &p, w2, three);
        memcpy(dst + 2*256, &w2, 8); memcpy(dst + 2*256 + 16, &n2, 8);
        const uint64_t n3 = bitcos_pdep_next_neg(sg, &p, w3, three);
        memcpy(dst + 3*256, &w3, 8); memcpy(dst + 3*256 + 16, &n3, 8);
        R->pos = p;
        st->dh[r] = R->d[b];
    }
}

// NH tiles of 16 rows (NH = 1: 16 rows, NH = 2: 32 rows sharing every table load).
BITCOS_INLINE void lut_kernel(const int NH, int n, float * s, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, const bitcos_lut_block * lut, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;
    if (BITCOS_UNLIKELY(!lut_ready)) lut_init();

    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    lut_row rows[2][BITCOS_LUT_ROWS];
    for (int h = 0; h < NH; ++h) {
        for (int r = 0; r < BITCOS_LUT_ROWS; ++r) {
            const int sl = lut_slot[r], rr = 16*h + r;
            rows[h][r] = (lut_row) { bitmap[rr], signs[rr], d16[rr], 0, (uint64_t) ((sl >> 1) * 32 + (sl & 1) * 8) };
        }
    }
    lut_stage st[2][2]; // [buffer][tile]
    alignas(32) __m256i X[2][4][8];
    __m256 facc[2][8][2];
    for (int h = 0; h < NH; ++h) for (int m = 0; m < 8; ++m) facc[h][m][0] = facc[h][m][1] = _mm256_setzero_ps();

    const __m256i F  = _mm256_set1_epi8(0x0f);
    const __m256i C  = _mm256_setr_epi8(1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32, 1, 32,
                                        -2, -64, -2, -64, -2, -64, -2, -64, -2, -64, -2, -64, -2, -64, -2, -64);

    for (int h = 0; h < NH; ++h) lut_scalar_block(&st[0][h], 0, rows[h], three);
    for (int b = 0; b < nb; ++b) {
        // scalar part of the next block (software pipelining: its stores are
        // read back one iteration later, never forwarded from in-flight stores)
        if (b + 1 < nb) for (int h = 0; h < NH; ++h) lut_scalar_block(&st[(b + 1) & 1][h], b + 1, rows[h], three);

        LUT_MCA_MARK("BEGIN vector");
        __m256 de[2], dO[2];
        const __m256 yd = _mm256_set1_ps(y[b].d);
        for (int h = 0; h < NH; ++h) {
            const lut_stage * cur = &st[b & 1][h];
#pragma GCC unroll 4
            for (int i = 0; i < 4; ++i) {
                __m256i in[8], out[8];
#pragma GCC unroll 8
                for (int a = 0; a < 8; ++a) in[a] = _mm256_load_si256((const __m256i *) (cur->S + 256*i + 32*a));
                lut_transpose8(in, out);
#pragma GCC unroll 8
                for (int j = 0; j < 8; ++j) X[h][i][j] = out[j]; // lut_kmap is the identity (checked in lut_init)
            }
            de[h] = _mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128((const __m128i *) cur->dh)), yd);
            dO[h] = _mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128((const __m128i *) (cur->dh + 8))), yd);
        }
        const bitcos_lut_block * L = &lut[b];

#pragma GCC unroll 8
        for (int m = 0; m < 8; ++m) {
            const int nib = m & 1, kc = m >> 1;
            __m256i aL[2], aH[2];
            for (int h = 0; h < NH; ++h) aL[h] = aH[h] = _mm256_setzero_si256();
#pragma GCC unroll 4
            for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 2
                for (int kk = kc; kk < 8; kk += 4) {
                    const uint8_t * t = L->tab[16*i + 2*kk + nib];
                    const __m256i tl = _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *) t));
                    const __m256i th = _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *) (t + 16)));
#pragma GCC unroll 2
                    for (int h = 0; h < NH; ++h) {
                        const __m256i x = X[h][i][kk];
                        const __m256i idx = nib ? _mm256_and_si256(_mm256_srli_epi16(x, 4), F) : _mm256_and_si256(x, F);
                        aL[h] = _mm256_add_epi8(aL[h], _mm256_shuffle_epi8(tl, idx));
                        aH[h] = _mm256_add_epi8(aH[h], _mm256_shuffle_epi8(th, idx));
                    }
                }
            }
            const __m256i cm = _mm256_set1_epi16(L->corr[m]);
#pragma GCC unroll 2
            for (int h = 0; h < NH; ++h) {
                // lane 0: (Lw, Hw) pairs -> Lw + 32 Hw; lane 1: (Ln, Hn) -> -2 Ln - 64 Hn
                const __m256i v0 = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(aL[h], aH[h]), C);
                const __m256i v1 = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(aL[h], aH[h]), C);
                const __m256i xa = _mm256_permute2x128_si256(v0, v1, 0x20);
                const __m256i xb = _mm256_permute2x128_si256(v0, v1, 0x31);
                const __m256i x16 = _mm256_add_epi16(_mm256_add_epi16(xa, xb), cm);
                const __m256i e = _mm256_srai_epi32(_mm256_slli_epi32(x16, 16), 16); // rows 0..7 of the tile
                const __m256i o = _mm256_srai_epi32(x16, 16);                        // rows 8..15
                facc[h][m][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(e), de[h], facc[h][m][0]);
                facc[h][m][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(o), dO[h], facc[h][m][1]);
            }
        }
        LUT_MCA_MARK("END vector");
    }
    for (int h = 0; h < NH; ++h) {
        for (int e = 0; e < 2; ++e) {
            const __m256 r0 = _mm256_add_ps(facc[h][0][e], facc[h][4][e]);
            const __m256 r1 = _mm256_add_ps(facc[h][1][e], facc[h][5][e]);
            const __m256 r2 = _mm256_add_ps(facc[h][2][e], facc[h][6][e]);
            const __m256 r3 = _mm256_add_ps(facc[h][3][e], facc[h][7][e]);
            _mm256_storeu_ps(s + 16*h + 8*e, _mm256_add_ps(_mm256_add_ps(r0, r2), _mm256_add_ps(r1, r3)));
        }
    }
}

void bitcos_vec_dot_lut16(int n, float * s, const uint8_t * const * bitmap, const uint8_t * const * signs,
                          const uint16_t * const * d16, const bitcos_lut_block * lut, const void * vy) {
    lut_kernel(1, n, s, bitmap, signs, d16, lut, vy);
}

void bitcos_vec_dot_lut32(int n, float * s, const uint8_t * const * bitmap, const uint8_t * const * signs,
                          const uint16_t * const * d16, const bitcos_lut_block * lut, const void * vy) {
    lut_kernel(2, n, s, bitmap, signs, d16, lut, vy);
}

int lut_debug_maps(int * k, int * s) {
    for (int j = 0; j < 8; ++j) k[j] = lut_kmap[j];
    for (int q = 0; q < 16; ++q) s[q] = lut_slot[q];
    return 0;
}

