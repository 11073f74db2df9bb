// Batched BITCOS x Q8_K in TQ2_0's x86 float order: panels of rows decoded
// once into TQ2_0 code bytes, multiplied with tiles of activation columns
// (bitcos_gemm.h has the contract and the panel layout).
//
// Float order, per output (row r, column y), bit-identical to
// bitcos_vec_dot_q8_K_tq2order: per 256-block b in order, the 8 exact int32
// lanes L_m = sum over E_m of c*q - (bsums[2m] + bsums[2m+1]);
// d = y[b].d * d_b (one rounded multiply); acc[m] = fma((float) L_m, d,
// acc[m]); at the end ggml's hsum_float_8 (bitcos_tq2_hsum). The integer
// lanes are exact however they are summed (at most 256 products of 2*127 per
// block and lane, and 16-bit partial sums of at most 8 chunks x 2 products
// = 4064), so the paths differ only in how they form them; the float steps
// are the same instructions per lane (vcvtdq2ps, vmulps, vfmadd231ps) in
// every path, two outputs per 512-bit vector in the AVX-512 path.
//
// Per 32-element chunk and tile the AVX-512 path loads four 512-bit code
// vectors (a row pair each, two panels) and four 256-bit column chunks
// broadcast to both halves, and issues 16 vpdpbusd: 32 (row, column)
// products of 32 elements.

#include "bitcos_impl.h"
#include "bitcos_gemm.h"
#include "bitcos_layout.h"

#include <math.h>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__BMI2__) && defined(__FMA__)
#define BITCOS_GEMM_PATH 512
#elif defined(__AVX2__) && defined(__FMA__)
#define BITCOS_GEMM_PATH 256
#else
#define BITCOS_GEMM_PATH 0
#endif

#if BITCOS_GEMM_PATH
#include "bitcos_tq2_step.h"
#include "bitcos_nopdep_tables.h"
#endif

// BITCOS_GEMM_PIN(v): the compiler must treat the vector v as unknown. The
// 16-bit accumulators of the vpmaddubsw paths (and the AVX-VNNI ones) are
// pinned after every chunk: GCC otherwise reassociates the (associative)
// integer adds into a tree over all 8 chunks and spills most of the 64
// products (seen with GCC 12 -O3; unpinned, the AVX2 tile took 1.5x the
// time). The AVX2 tiles pin each column chunk too (why: at the tiles).
#if defined(__GNUC__) && BITCOS_GEMM_PATH == 512
#define BITCOS_GEMM_PIN(v) __asm__ ("" : "+v"(v))
#elif defined(__GNUC__) && BITCOS_GEMM_PATH == 256
#define BITCOS_GEMM_PIN(v) __asm__ ("" : "+x"(v))
#else
#define BITCOS_GEMM_PIN(v) ((void)0)
#endif

// K-slabs: every tile of a column group runs over BITCOS_GEMM_SLAB blocks of
// the panels before the next slab, so that the slab of the panels (up to 8
// rows x 2560 weights, 23 KiB) stays in L1 while the group's columns stream
// past it; a column group is up to BITCOS_GEMM_GROUP columns (float
// accumulators on the stack: up to 16 KiB).
#define BITCOS_GEMM_SLAB  10
#define BITCOS_GEMM_GROUP 64

// Row i's first code byte in a block: its half of its row pair's chunks.
#define BITCOS_GEMM_ROW(i) (512*((i)/2) + 32*((i)%2))
#define BITCOS_GEMM_CODES(panel, b, p, k) ((const uint8_t *) (panel) + (size_t) (b) * BITCOS_GEMM_BLOCK_BYTES + 512*(p) + 64*(k))
#define BITCOS_GEMM_SCALES(panel, b, p)   ((const float *) ((const uint8_t *) (panel) + (size_t) (b) * BITCOS_GEMM_BLOCK_BYTES + 1024 + 64*(p)))

int bitcos_gemm_isa(void) {
#if BITCOS_GEMM_PATH == 512 && defined(__AVX512VNNI__)
    return BITCOS_GEMM_AVX512_VNNI;
#elif BITCOS_GEMM_PATH == 512
    return BITCOS_GEMM_AVX512;
#elif BITCOS_GEMM_PATH == 256 && defined(__AVXVNNI__)
    return BITCOS_GEMM_AVX2_VNNI;
#elif BITCOS_GEMM_PATH == 256
    return BITCOS_GEMM_AVX2;
#else
    return BITCOS_GEMM_SCALAR;
#endif
}

// Block b's scale vector of panel row i: 8 copies of d.
static void bitcos_gemm_panel_scale(uint8_t * panel, int b, int i, float d) {
    float v[8];
    for (int l = 0; l < 8; ++l) {
        v[l] = d;
    }
    memcpy(panel + (size_t) b * BITCOS_GEMM_BLOCK_BYTES + 1024 + 64*(i/2) + 32*(i%2), v, sizeof(v));
}

// The scale vectors of every block: row i's d_b (0 for padding rows), the
// same in every path.
static void bitcos_gemm_panel_scales(int nb, uint8_t * panel, int nr, const uint16_t * const * d16, float d32) {
    for (int b = 0; b < nb; ++b) {
        for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
            bitcos_gemm_panel_scale(panel, b, i, i < nr ? (d16 ? bitcos_fp16_to_fp32(d16[i][b]) : d32) : 0.0f);
        }
    }
}

// The same from TQ2_0 blocks (or f32 blocks): row i's block b's d at byte 64
// of the block.
static void bitcos_gemm_panel_scales_tq2_0(int nb, uint8_t * panel, int nr, const void * const * rows, int f32) {
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    for (int b = 0; b < nb; ++b) {
        for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
            const float d = i < nr ? bitcos_tq2_0_block_d((const uint8_t *) rows[i] + (size_t) b * bb, f32) : 0.0f;
            bitcos_gemm_panel_scale(panel, b, i, d);
        }
    }
}

#if BITCOS_GEMM_PATH

// Where panel row i's codes start in block 0. A row past nr is padding: code
// 1 (t = 0) in every chunk of every block, written here, and NULL says so.
BITCOS_INLINE uint8_t * bitcos_gemm_row_start(uint8_t * panel, int i, int nr, int nb) {
    uint8_t * out = panel + BITCOS_GEMM_ROW(i);
    if (i < nr) {
        return out;
    }
    for (int b = 0; b < nb; ++b) {
        for (int k = 0; k < 8; ++k) {
            _mm256_storeu_si256((__m256i *) (out + (size_t) b * BITCOS_GEMM_BLOCK_BYTES + 64*k), _mm256_set1_epi8(1));
        }
    }
    return NULL;
}

// The 32 codes of bitmap bytes bm[0..3] without pdep (bitcos_nopdep.c's
// deposit, for CPUs where pdep is microcoded): the 128-bit lane of bytes
// bm[2h], bm[2h+1] holds its first 16 signs as bytes in sign order (sv:
// 0xff = negative), and each present weight's rank among the lane's present
// weights (>= 0x80 for absent ones, from the rank tables) picks its sign with
// one vpshufb. c = 1 + present - 2 * negative.
BITCOS_INLINE __m256i bitcos_gemm_codes32_nopdep(const uint8_t * bm, const uint8_t * signs, uint64_t * pos) {
    const __m256i spread   = _mm256_setr_epi8(0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3);
    const __m256i lane_bit = _mm256_set1_epi64x(0x8040201008040201);
    uint32_t m;
    memcpy(&m, bm, sizeof(m));
    const unsigned c  = (unsigned) __builtin_popcount(m);
    const unsigned c0 = (unsigned) __builtin_popcount(m & 0xffff);
    const uint64_t p  = *pos;
    const uint64_t sg = bitcos_load_u64(signs + (p >> 3)) >> (p & 7); // >= 57 valid bits, c <= 32
    *pos = p + c;
    const uint32_t w = (uint32_t) (sg & 0xffff) | (uint32_t) (sg >> c0) << 16;
    const __m256i pm = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int) m), spread), lane_bit), lane_bit);
    const __m256i sv = _mm256_cmpeq_epi8(_mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int) w), spread), lane_bit), lane_bit);
    const __m256i ra = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) bitcos_rank_a[bm[0]])),
                                               _mm_loadu_si128((const __m128i *) bitcos_rank_a[bm[2]]), 1);
    const __m256i rb = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *) bitcos_rank_b[bm[1]])),
                                               _mm_loadu_si128((const __m128i *) bitcos_rank_b[bm[3]]), 1);
    const __m256i nm = _mm256_shuffle_epi8(sv, _mm256_add_epi8(ra, rb));
    const __m256i ones = _mm256_set1_epi8(1);
    return _mm256_sub_epi8(_mm256_add_epi8(ones, _mm256_and_si256(pm, ones)), _mm256_and_si256(nm, _mm256_set1_epi8(2)));
}

void bitcos_gemm_panel_nopdep(int n, void * vpanel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32) {
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        uint8_t * out = bitcos_gemm_row_start(panel, i, nr, nb);
        if (out == NULL) {
            continue;
        }
        const uint8_t * bm = bitmap[i];
        const uint8_t * sg = signs[i];
        uint64_t pos = 0;
        for (int b = 0; b < nb; ++b) {
            for (int k = 0; k < 8; ++k) {
                _mm256_storeu_si256((__m256i *) (out + 64*k), bitcos_gemm_codes32_nopdep(bm + 32*b + 4*k, sg, &pos));
            }
            out += BITCOS_GEMM_BLOCK_BYTES;
        }
    }
    bitcos_gemm_panel_scales(nb, panel, nr, d16, d32);
}

#endif

#if BITCOS_GEMM_PATH == 512

void bitcos_gemm_panel(int n, void * vpanel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                       const uint16_t * const * d16, float d32) {
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        uint8_t * out = bitcos_gemm_row_start(panel, i, nr, nb);
        if (out == NULL) {
            continue;
        }
        const uint8_t * bm = bitmap[i];
        const uint8_t * sg = signs[i];
        uint64_t pos = 0;
        for (int b = 0; b < nb; ++b) {
            for (int w = 0; w < 4; ++w) {
                const __m512i z = bitcos_tq2_codes512(bm + 32*b + 8*w, sg, &pos, three);
                // elements 0..31 of the word are chunk 2w, 32..63 chunk 2w+1
                _mm256_storeu_si256((__m256i *) (out + 128*w),      _mm512_castsi512_si256(z));
                _mm256_storeu_si256((__m256i *) (out + 128*w + 64), _mm512_extracti64x4_epi64(z, 1));
            }
            out += BITCOS_GEMM_BLOCK_BYTES;
        }
    }
    bitcos_gemm_panel_scales(nb, panel, nr, d16, d32);
}

// From TQ2_0 blocks: per block and qs half h (elements 128h..128h+127), the
// halves of the two rows of a pair side by side in one vector; shifting it
// by 2s and masking gives chunk 4h+s of both rows, the row pair's 64 code
// bytes. A padding row reads 0x55 (code 1 in every field).
void bitcos_gemm_panel_tq2_0(int n, void * vpanel, int nr, const void * const * rows, int f32) {
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    const __m256i pad   = _mm256_set1_epi8(0x55);
    const __m512i three = _mm512_set1_epi8(3);
    for (int p = 0; p < BITCOS_GEMM_ROWS / 2; ++p) {
        const uint8_t * r0 = 2*p     < nr ? (const uint8_t *) rows[2*p]     : NULL;
        const uint8_t * r1 = 2*p + 1 < nr ? (const uint8_t *) rows[2*p + 1] : NULL;
        for (int b = 0; b < nb; ++b) {
            uint8_t * out = panel + (size_t) b * BITCOS_GEMM_BLOCK_BYTES + 512*p;
            for (int h = 0; h < 2; ++h) {
                const size_t o = (size_t) b * bb + 32*h;
                const __m256i q0 = r0 ? _mm256_loadu_si256((const __m256i *) (r0 + o)) : pad;
                const __m256i q1 = r1 ? _mm256_loadu_si256((const __m256i *) (r1 + o)) : pad;
                const __m512i q  = _mm512_inserti64x4(_mm512_castsi256_si512(q0), q1, 1);
                for (int s = 0; s < 4; ++s) {
                    _mm512_storeu_si512((void *) (out + 64*(4*h + s)), _mm512_and_si512(_mm512_srli_epi16(q, 2*s), three));
                }
            }
        }
    }
    bitcos_gemm_panel_scales_tq2_0(nb, panel, nr, rows, f32);
}

// ggml's hsum_float_8 of each half of v: out[0] the low 8 lanes, out[1] the high.
BITCOS_INLINE void bitcos_gemm_hsum2(__m512 v, float * lo, float * hi) {
    *lo = bitcos_tq2_hsum(_mm512_castps512_ps256(v));
    *hi = bitcos_tq2_hsum(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

// np row pairs (1..4: pairs 0 and 1 in panel pa, 2 and 3 in panel pb) x nc
// columns (1..4), blocks b0..b1-1. The float accumulator of row pair p and
// column j, accm[4*p + j], stays in memory (one load and store per block:
// 16 integer accumulators, 4 code vectors and a column chunk take 21 of the
// 32 registers). A block's d of pair p and column j is one lane-permute of
// the 8 rows' products x_r * y.d (one vmulps per column): vmulps competes
// with vpdpbusd for the same two pipes on AMD Zen 5, a permute does not
// (measured there; the 8-row tile runs in 0.88x the time of the 4-row one
// it replaced). Exact: the same product per lane, the same fma per block.
BITCOS_INLINE void bitcos_gemm_tile512(int b0, int b1, const uint8_t * pa, const uint8_t * pb, const bitcos_block_q8_K * const * y,
                                       const int np, const int nc, __m512 * accm) {
    // lanes 0..3: rows 0..3's d (lane 0 of each half of a pair's scale vector)
    const __m512i rowd = _mm512_setr_epi32(0, 8, 16, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    for (int b = b0; b < b1; ++b) {
        // opaque per block, so that GCC keeps the float accumulators in
        // memory instead of spilling around the integer part
        __m512 * acc = accm;
#if defined(__GNUC__)
        __asm__ ("" : "+r"(acc));
#endif
        __m512i L[4][4];
#if defined(__AVX512VNNI__)
        // lanes start at minus the bsums pairs of their column (both halves)
        #pragma GCC unroll 4
        for (int j = 0; j < nc; ++j) {
            const __m512i nbs = _mm512_madd_epi16(_mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) y[j][b].bsums)),
                                                  _mm512_set1_epi16(-1));
            #pragma GCC unroll 4
            for (int p = 0; p < np; ++p) {
                L[p][j] = nbs;
            }
        }
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            __m512i c[4];
            #pragma GCC unroll 4
            for (int p = 0; p < np; ++p) {
                c[p] = _mm512_loadu_si512((const void *) BITCOS_GEMM_CODES(p < 2 ? pa : pb, b, p & 1, k));
            }
            #pragma GCC unroll 4
            for (int j = 0; j < nc; ++j) {
                const __m512i q = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) (y[j][b].qs + 32*k)));
                #pragma GCC unroll 4
                for (int p = 0; p < np; ++p) {
                    L[p][j] = _mm512_dpbusd_epi32(L[p][j], c[p], q);
                }
            }
        }
#else
        // (starting the 16-bit lanes at minus the bsums, as the AVX2 path
        // does, made GCC 12 add 23 register moves per block here)
        __m512i a[4][4];
        #pragma GCC unroll 4
        for (int p = 0; p < np; ++p) {
            #pragma GCC unroll 4
            for (int j = 0; j < nc; ++j) {
                a[p][j] = _mm512_setzero_si512();
            }
        }
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            __m512i c[4];
            #pragma GCC unroll 4
            for (int p = 0; p < np; ++p) {
                c[p] = _mm512_loadu_si512((const void *) BITCOS_GEMM_CODES(p < 2 ? pa : pb, b, p & 1, k));
            }
            #pragma GCC unroll 4
            for (int j = 0; j < nc; ++j) {
                const __m512i q = _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) (y[j][b].qs + 32*k)));
                #pragma GCC unroll 4
                for (int p = 0; p < np; ++p) {
                    a[p][j] = _mm512_add_epi16(a[p][j], _mm512_maddubs_epi16(c[p], q));
                    BITCOS_GEMM_PIN(a[p][j]);
                }
            }
        }
        #pragma GCC unroll 4
        for (int j = 0; j < nc; ++j) {
            const __m512i nbs = _mm512_madd_epi16(_mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *) y[j][b].bsums)),
                                                  _mm512_set1_epi16(-1));
            #pragma GCC unroll 4
            for (int p = 0; p < np; ++p) {
                L[p][j] = _mm512_add_epi32(_mm512_madd_epi16(a[p][j], _mm512_set1_epi16(1)), nbs);
            }
        }
#endif
        // the 8 rows' d_b (panel pb's only when np > 2)
        const __m512 xa = _mm512_permutex2var_ps(_mm512_loadu_ps(BITCOS_GEMM_SCALES(pa, b, 0)), rowd,
                                                 _mm512_loadu_ps(BITCOS_GEMM_SCALES(pa, b, 1)));
        __m256 x8 = _mm512_castps512_ps256(xa);
        if (np > 2) {
            const __m512 xb = _mm512_permutex2var_ps(_mm512_loadu_ps(BITCOS_GEMM_SCALES(pb, b, 0)), rowd,
                                                     _mm512_loadu_ps(BITCOS_GEMM_SCALES(pb, b, 1)));
            x8 = _mm256_insertf128_ps(x8, _mm512_castps512_ps128(xb), 1);
        }
        #pragma GCC unroll 4
        for (int j = 0; j < nc; ++j) {
            // lane r: d = y.d * x_r, rounded once as TQ2_0's kernel rounds it
            const __m512 dj = _mm512_zextps256_ps512(_mm256_mul_ps(x8, _mm256_set1_ps(y[j][b].d)));
            #pragma GCC unroll 4
            for (int p = 0; p < np; ++p) {
                const __m512 d = _mm512_permutexvar_ps(_mm512_inserti64x4(_mm512_set1_epi32(2*p), _mm256_set1_epi32(2*p + 1), 1), dj);
                acc[4*p + j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(L[p][j]), d, acc[4*p + j]);
            }
        }
    }
}

#define BITCOS_GEMM_TILE_FN(np, nc) \
    static void bitcos_gemm_tile_##np##_##nc(int b0, int b1, const uint8_t * pa, const uint8_t * pb, \
                                             const bitcos_block_q8_K * const * y, __m512 * accm) { \
        bitcos_gemm_tile512(b0, b1, pa, pb, y, np, nc, accm); \
    }
BITCOS_GEMM_TILE_FN(1, 1) BITCOS_GEMM_TILE_FN(1, 2) BITCOS_GEMM_TILE_FN(1, 3) BITCOS_GEMM_TILE_FN(1, 4)
BITCOS_GEMM_TILE_FN(2, 1) BITCOS_GEMM_TILE_FN(2, 2) BITCOS_GEMM_TILE_FN(2, 3) BITCOS_GEMM_TILE_FN(2, 4)
BITCOS_GEMM_TILE_FN(3, 1) BITCOS_GEMM_TILE_FN(3, 2) BITCOS_GEMM_TILE_FN(3, 3) BITCOS_GEMM_TILE_FN(3, 4)
BITCOS_GEMM_TILE_FN(4, 1) BITCOS_GEMM_TILE_FN(4, 2) BITCOS_GEMM_TILE_FN(4, 3) BITCOS_GEMM_TILE_FN(4, 4)
#undef BITCOS_GEMM_TILE_FN

typedef void (*bitcos_gemm_tile_t)(int b0, int b1, const uint8_t * pa, const uint8_t * pb, const bitcos_block_q8_K * const * y,
                                   __m512 * accm);

void bitcos_gemm_q8_K(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s) {
    static const bitcos_gemm_tile_t tiles[4][4] = {
        { bitcos_gemm_tile_1_1, bitcos_gemm_tile_1_2, bitcos_gemm_tile_1_3, bitcos_gemm_tile_1_4 },
        { bitcos_gemm_tile_2_1, bitcos_gemm_tile_2_2, bitcos_gemm_tile_2_3, bitcos_gemm_tile_2_4 },
        { bitcos_gemm_tile_3_1, bitcos_gemm_tile_3_2, bitcos_gemm_tile_3_3, bitcos_gemm_tile_3_4 },
        { bitcos_gemm_tile_4_1, bitcos_gemm_tile_4_2, bitcos_gemm_tile_4_3, bitcos_gemm_tile_4_4 },
    };
    const int nb = n / BITCOS_QK_K;
    const int np = (nr + 1) / 2;
    const uint8_t * pa = (const uint8_t *) panel;
    const uint8_t * pb = pa + BITCOS_GEMM_PANEL_SIZE(n); // read only when np > 2
    for (int g0 = 0; g0 < nc; g0 += BITCOS_GEMM_GROUP) {
        const int ng = nc - g0 < BITCOS_GEMM_GROUP ? nc - g0 : BITCOS_GEMM_GROUP;
        const int nt = (ng + BITCOS_GEMM_COLS - 1) / BITCOS_GEMM_COLS;
        __m512 acc[BITCOS_GEMM_GROUP / BITCOS_GEMM_COLS][16]; // [tile][4*p + j]
        const bitcos_block_q8_K * yy[BITCOS_GEMM_GROUP / BITCOS_GEMM_COLS][4];
        for (int t = 0; t < nt; ++t) {
            for (int j = 0; j < 4 && 4*t + j < ng; ++j) {
                yy[t][j] = (const bitcos_block_q8_K *) y[g0 + 4*t + j];
            }
            for (int a = 0; a < 16; ++a) {
                acc[t][a] = _mm512_setzero_ps();
            }
        }
        for (int b0 = 0; b0 < nb; b0 += BITCOS_GEMM_SLAB) {
            const int b1 = nb - b0 < BITCOS_GEMM_SLAB ? nb : b0 + BITCOS_GEMM_SLAB;
            for (int t = 0; t < nt; ++t) {
                const int ncj = ng - 4*t < 4 ? ng - 4*t : 4;
                tiles[np - 1][ncj - 1](b0, b1, pa, pb, yy[t], acc[t]);
            }
        }
        for (int t = 0; t < nt; ++t) {
            for (int j = 0; j < 4 && 4*t + j < ng; ++j) {
                for (int p = 0; p < np; ++p) {
                    float o[2];
                    bitcos_gemm_hsum2(acc[t][4*p + j], &o[0], &o[1]);
                    for (int h = 0; h < 2 && 2*p + h < nr; ++h) {
                        s[g0 + 4*t + j][2*p + h] = o[h];
                    }
                }
            }
        }
    }
}

#elif BITCOS_GEMM_PATH == 256

#if !defined(__BMI2__)
void bitcos_gemm_panel(int n, void * vpanel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                       const uint16_t * const * d16, float d32) {
    bitcos_gemm_panel_nopdep(n, vpanel, nr, bitmap, signs, d16, d32);
}
#else
void bitcos_gemm_panel(int n, void * vpanel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                       const uint16_t * const * d16, float d32) {
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    uint64_t three = 3;
    BITCOS_OPAQUE_U64(three);
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        uint64_t pos = 0;
        for (int b = 0; b < nb; ++b) {
            uint8_t * out = panel + (size_t) b * BITCOS_GEMM_BLOCK_BYTES + BITCOS_GEMM_ROW(i);
            for (int w = 0; w < 4; ++w) {
                __m256i c0 = _mm256_set1_epi8(1), c1 = _mm256_set1_epi8(1);
                if (i < nr) {
                    bitcos_tq2_codes64(bitmap[i] + 32*b + 8*w, signs[i], &pos, three, &c0, &c1);
                }
                _mm256_storeu_si256((__m256i *) (out + 128*w),      c0);
                _mm256_storeu_si256((__m256i *) (out + 128*w + 64), c1);
            }
        }
    }
    bitcos_gemm_panel_scales(nb, panel, nr, d16, d32);
}
#endif

// From TQ2_0 blocks: per block and qs half h (elements 128h..128h+127),
// shifting the row's 32 bytes by 2s and masking gives its chunk 4h+s. A
// padding row reads 0x55 (code 1 in every field).
void bitcos_gemm_panel_tq2_0(int n, void * vpanel, int nr, const void * const * rows, int f32) {
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    const __m256i three = _mm256_set1_epi8(3);
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        const uint8_t * r = i < nr ? (const uint8_t *) rows[i] : NULL;
        for (int b = 0; b < nb; ++b) {
            uint8_t * out = panel + (size_t) b * BITCOS_GEMM_BLOCK_BYTES + BITCOS_GEMM_ROW(i);
            for (int h = 0; h < 2; ++h) {
                const __m256i q = r ? _mm256_loadu_si256((const __m256i *) (r + (size_t) b * bb + 32*h))
                                    : _mm256_set1_epi8(0x55);
                for (int s = 0; s < 4; ++s) {
                    _mm256_storeu_si256((__m256i *) (out + 64*(4*h + s)), _mm256_and_si256(_mm256_srli_epi16(q, 2*s), three));
                }
            }
        }
    }
    bitcos_gemm_panel_scales_tq2_0(nb, panel, nr, rows, f32);
}

// AVX2 tiles: the panel's 4 rows (2 when nr <= 2) x up to 3 columns. Per
// 32-element chunk a tile loads its rows' code vectors, then each column's
// chunk once, pinned in a register (BITCOS_GEMM_PIN: GCC otherwise folds it
// into every vpmaddubsw as a memory operand, i.e. loads it once per row),
// and issues one vpmaddubsw + vpaddw (AVX-VNNI: one vpdpbusd) per (row,
// column). 12 integer accumulators + 4 code vectors + the column chunk use
// the 16 ymm registers; the float accumulators live in memory (acc), one
// load and store per block.
//
// Why this shape (measured on AMD Zen 5, kernels/README.md has the figures):
// vpmaddubsw, vpmaddwd, vpdpbusd, vmulps and vfmadd231ps share two pipes,
// vpaddw runs on all four, vcvtdq2ps and shifts on the other two, so a
// tile's cost is its vector ALU instructions: per (row, column, block) 8
// vpmaddubsw + 8 vpaddw/vpsubw and the float step (vpmaddwd, vcvtdq2ps,
// vmulps, vfmadd231ps), 20 in all, against TQ2_0's ~35 (its weight shifts
// and ands are redone for every column). The 2 x 4 tiles before read each
// column chunk twice as a memory operand, and nearly half the Q8_K chunks
// cross a cache line (292-byte blocks): loads, not arithmetic, bounded them.
#define BITCOS_GEMM_TC256 3

// rows r0..r0+nrt-1 (nrt = 2 or 4) of the panel x nc columns (1..3), blocks
// b0..b1-1; acc[j][i] is the float accumulator of column j and panel row i,
// carried through the blocks in order (a K-slab changes nothing in the
// float order).
BITCOS_INLINE void bitcos_gemm_tile256(int b0, int b1, const uint8_t * panel, const int r0, const int nrt,
                                       const bitcos_block_q8_K * const * y, const int nc, __m256 (*acc)[BITCOS_GEMM_ROWS]) {
    for (int b = b0; b < b1; ++b) {
        // opaque per block, so that GCC does not promote the 12 float
        // accumulators to registers across blocks (and then spill them
        // around the integer part; seen with GCC 12 -O3)
        __m256 (*accb)[BITCOS_GEMM_ROWS] = acc;
#if defined(__GNUC__)
        __asm__ ("" : "+r"(accb));
#endif
        __m256i a[BITCOS_GEMM_ROWS][BITCOS_GEMM_TC256];
        #pragma GCC unroll 4
        for (int j = 0; j < nc; ++j) {
#if defined(__AVXVNNI__)
            // int32 lanes start at minus the column's bsums pairs
            const __m256i nbs = _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *) y[j][b].bsums), _mm256_set1_epi16(-1));
#else
            // 16-bit lanes start at minus the column's bsums: lanes 2m and
            // 2m+1 are the pair vpmaddwd adds into int32 lane m (|lane| <=
            // 16*128 + 8 chunks * 2 * 2*128 = 6144 for any int8 activations,
            // and no vpmaddubsw pair saturates: codes are at most 2)
            const __m256i nbs = _mm256_sub_epi16(_mm256_setzero_si256(), _mm256_loadu_si256((const __m256i *) y[j][b].bsums));
#endif
            #pragma GCC unroll 4
            for (int r = 0; r < nrt; ++r) {
                a[r][j] = nbs;
            }
        }
#pragma GCC unroll 8
        for (int k = 0; k < 8; ++k) {
            __m256i c[BITCOS_GEMM_ROWS];
            #pragma GCC unroll 4
            for (int r = 0; r < nrt; ++r) {
                c[r] = _mm256_loadu_si256((const __m256i *) (BITCOS_GEMM_CODES(panel, b, (r0 + r)/2, k) + 32*((r0 + r)%2)));
            }
            #pragma GCC unroll 4
            for (int j = 0; j < nc; ++j) {
                __m256i q = _mm256_loadu_si256((const __m256i *) (y[j][b].qs + 32*k));
                BITCOS_GEMM_PIN(q);
                #pragma GCC unroll 4
                for (int r = 0; r < nrt; ++r) {
#if defined(__AVXVNNI__)
                    a[r][j] = _mm256_dpbusd_avx_epi32(a[r][j], c[r], q);
#else
                    a[r][j] = _mm256_add_epi16(a[r][j], _mm256_maddubs_epi16(c[r], q));
#endif
                    BITCOS_GEMM_PIN(a[r][j]);
                }
            }
        }
        #pragma GCC unroll 4
        for (int j = 0; j < nc; ++j) {
            const __m256 yd = _mm256_set1_ps(y[j][b].d);
            #pragma GCC unroll 4
            for (int r = 0; r < nrt; ++r) {
#if defined(__AVXVNNI__)
                const __m256i L = a[r][j];
#else
                const __m256i L = _mm256_madd_epi16(a[r][j], _mm256_set1_epi16(1));
#endif
                const __m256 d = _mm256_mul_ps(_mm256_loadu_ps(BITCOS_GEMM_SCALES(panel, b, (r0 + r)/2) + 8*((r0 + r)%2)), yd);
                accb[j][r0 + r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(L), d, accb[j][r0 + r]);
            }
        }
    }
}

typedef void (*bitcos_gemm_tile_t)(int b0, int b1, const uint8_t * panel, const bitcos_block_q8_K * const * y,
                                   __m256 (*acc)[BITCOS_GEMM_ROWS]);

#define BITCOS_GEMM_TILE_FN(nrt, nc) \
    static void bitcos_gemm_tile_##nrt##_##nc(int b0, int b1, const uint8_t * panel, const bitcos_block_q8_K * const * y, \
                                              __m256 (*acc)[BITCOS_GEMM_ROWS]) { \
        bitcos_gemm_tile256(b0, b1, panel, 0, nrt, y, nc, acc); \
    }
BITCOS_GEMM_TILE_FN(2, 1) BITCOS_GEMM_TILE_FN(2, 2) BITCOS_GEMM_TILE_FN(2, 3)
BITCOS_GEMM_TILE_FN(4, 1) BITCOS_GEMM_TILE_FN(4, 2) BITCOS_GEMM_TILE_FN(4, 3)
#undef BITCOS_GEMM_TILE_FN

// One panel's rows (nr <= 4) into s[j][i0 + i].
static void bitcos_gemm_q8_K_panel(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s, int i0) {
    // [nrt/2 - 1][ncj - 1]: a panel of 1-2 rows multiplies only its first
    // row pair, one of 3-4 rows both (a padding row costs as a real one)
    static const bitcos_gemm_tile_t tiles[2][BITCOS_GEMM_TC256] = {
        { bitcos_gemm_tile_2_1, bitcos_gemm_tile_2_2, bitcos_gemm_tile_2_3 },
        { bitcos_gemm_tile_4_1, bitcos_gemm_tile_4_2, bitcos_gemm_tile_4_3 },
    };
    const int nb = n / BITCOS_QK_K;
    const int np = (nr + 1) / 2;
    for (int g0 = 0; g0 < nc; g0 += BITCOS_GEMM_GROUP) {
        const int ng = nc - g0 < BITCOS_GEMM_GROUP ? nc - g0 : BITCOS_GEMM_GROUP;
        __m256 acc[BITCOS_GEMM_GROUP][BITCOS_GEMM_ROWS]; // [column][panel row]
        const bitcos_block_q8_K * yy[BITCOS_GEMM_GROUP];
        for (int j = 0; j < ng; ++j) {
            yy[j] = (const bitcos_block_q8_K *) y[g0 + j];
            for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
                acc[j][i] = _mm256_setzero_ps();
            }
        }
        for (int b0 = 0; b0 < nb; b0 += BITCOS_GEMM_SLAB) {
            const int b1 = nb - b0 < BITCOS_GEMM_SLAB ? nb : b0 + BITCOS_GEMM_SLAB;
            for (int j0 = 0; j0 < ng; j0 += BITCOS_GEMM_TC256) {
                const int ncj = ng - j0 < BITCOS_GEMM_TC256 ? ng - j0 : BITCOS_GEMM_TC256;
                tiles[np - 1][ncj - 1](b0, b1, (const uint8_t *) panel, yy + j0, acc + j0);
            }
        }
        for (int j = 0; j < ng; ++j) {
            for (int i = 0; i < nr; ++i) {
                s[g0 + j][i0 + i] = bitcos_tq2_hsum(acc[j][i]);
            }
        }
    }
}

#else

void bitcos_gemm_panel(int n, void * vpanel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                       const uint16_t * const * d16, float d32) {
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        uint64_t pos = 0;
        for (int e = 0; e < n; ++e) {
            uint8_t code = 1;
            if (i < nr && ((bitmap[i][e >> 3] >> (e & 7)) & 1)) {
                code = ((signs[i][pos >> 3] >> (pos & 7)) & 1) ? 0 : 2;
                ++pos;
            }
            const int b = e / BITCOS_QK_K, eb = e % BITCOS_QK_K;
            panel[(size_t) b * BITCOS_GEMM_BLOCK_BYTES + BITCOS_GEMM_ROW(i) + 64*(eb/32) + eb%32] = code;
        }
    }
    bitcos_gemm_panel_scales(nb, panel, nr, d16, d32);
}

void bitcos_gemm_panel_nopdep(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32) {
    bitcos_gemm_panel(n, panel, nr, bitmap, signs, d16, d32);
}

// The reference: element 32k+j of a block is (qs[32*(k/4) + j] >> 2*(k%4)) & 3.
void bitcos_gemm_panel_tq2_0(int n, void * vpanel, int nr, const void * const * rows, int f32) {
    const size_t bb = BITCOS_TQ2_0_BLOCK_SIZE(f32);
    uint8_t * panel = (uint8_t *) vpanel;
    const int nb = n / BITCOS_QK_K;
    for (int i = 0; i < BITCOS_GEMM_ROWS; ++i) {
        for (int b = 0; b < nb; ++b) {
            const uint8_t * qs = i < nr ? (const uint8_t *) rows[i] + (size_t) b * bb : NULL;
            for (int e = 0; e < BITCOS_QK_K; ++e) {
                const int k = e / 32, j = e % 32;
                panel[(size_t) b * BITCOS_GEMM_BLOCK_BYTES + BITCOS_GEMM_ROW(i) + 64*k + j] =
                    qs ? (uint8_t) ((qs[32*(k/4) + j] >> (2*(k%4))) & 3) : 1;
            }
        }
    }
    bitcos_gemm_panel_scales_tq2_0(nb, panel, nr, rows, f32);
}

// One panel's rows (nr <= 4) into s[j][i0 + i].
static void bitcos_gemm_q8_K_panel(int n, int nr, int nc, const void * panel, const void * const * vy, float * const * s, int i0) {
    const int nb = n / BITCOS_QK_K;
    for (int j = 0; j < nc; ++j) {
        const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy[j];
        for (int i = 0; i < nr; ++i) {
            float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
            for (int b = 0; b < nb; ++b) {
                int32_t lane[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
                for (int k = 0; k < 8; ++k) {
                    const uint8_t * c = BITCOS_GEMM_CODES(panel, b, i/2, k) + 32*(i%2);
                    for (int e = 0; e < 32; ++e) {
                        lane[e >> 2] += (int32_t) c[e] * y[b].qs[32*k + e];
                    }
                }
                float sc;
                memcpy(&sc, BITCOS_GEMM_SCALES(panel, b, i/2) + 8*(i%2), sizeof(sc));
                const float d = y[b].d * sc;
                for (int m = 0; m < 8; ++m) {
                    lane[m] -= (int32_t) y[b].bsums[2*m] + (int32_t) y[b].bsums[2*m + 1];
                    acc[m] = fmaf((float) lane[m], d, acc[m]);
                }
            }
            const float r0 = acc[0] + acc[4], r1 = acc[1] + acc[5], r2 = acc[2] + acc[6], r3 = acc[3] + acc[7];
            s[j][i0 + i] = (r0 + r2) + (r1 + r3);
        }
    }
}

#endif

#if BITCOS_GEMM_PATH != 512
// The AVX2 and scalar paths take the two panels one after the other.
void bitcos_gemm_q8_K(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s) {
    for (int i0 = 0; i0 < nr; i0 += BITCOS_GEMM_ROWS) {
        const int nri = nr - i0 < BITCOS_GEMM_ROWS ? nr - i0 : BITCOS_GEMM_ROWS;
        bitcos_gemm_q8_K_panel(n, nri, nc, (const uint8_t *) panel + (size_t) (i0 / BITCOS_GEMM_ROWS) * BITCOS_GEMM_PANEL_SIZE(n),
                               y, s, i0);
    }
}
#endif
