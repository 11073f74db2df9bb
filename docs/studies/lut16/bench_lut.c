// Adapted from kernels/c/bench/bench.c: the multi-row LUT kernel
// (bitcos_vec_dot_lut16) vs bitcos_vec_dot_q8_K_avx2_tq2 vs the tq2_0 avx2
// yardstick, same data (make_matrix builds BITCOS and TQ2_0 of the same
// values), alternated round robin, 1 thread.
//
//   bench_lut [z=0.42] [layers=24] [K=2560]
//
// L1: 32 rows of K (all kernels dot the same 32 rows again and again).
//     "lut16"/"lut32" are the kernels alone (tables prepared once), "+ prep"
//     includes bitcos_lut_prep for the column on every tile (the worst case:
//     one tile per column).
// DRAM: layers x 6912 rows of K, every row once per pass (GEMV); lut16 pays
//     bitcos_lut_prep once per pass (once per column).
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "bitcos.h"
#include "bitcos_tq2fast.h"
#include "tq2_0.h"
#include "lut.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rndf(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }
static uint16_t fp32_to_fp16(float f) { return _cvtss_sh(f, 0); }

typedef struct {
    int K, rows;
    uint8_t * bitmap; uint8_t * signs; uint32_t * off; uint16_t * d16; tq2_block * tq2;
    size_t bitcos_bytes, tq2_bytes;
} matrix;

static void make_matrix(matrix * M, int K, int rows, double z) {
    M->K = K; M->rows = rows;
    const size_t nbits = (size_t) K * rows;
    M->bitmap = calloc(nbits / 8, 1);
    M->signs  = calloc(nbits / 8 + 8, 1);
    M->off    = calloc(rows + 1, sizeof(uint32_t));
    M->d16    = calloc(nbits / 256, 2);
    M->tq2    = aligned_alloc(64, ((nbits / 256) * sizeof(tq2_block) + 63) / 64 * 64);
    memset(M->tq2, 0, (nbits / 256) * sizeof(tq2_block));
    size_t pos = 0;
    for (int r = 0; r < rows; ++r) {
        M->off[r] = (uint32_t) (pos / 8);
        for (int b = 0; b < K / 256; ++b) {
            const size_t blk = (size_t) r * (K / 256) + b;
            float d = (float) (0.5 + rndf()) * 0.01f;
            if (rnd() % 97 == 0) d = 0.0f;
            M->d16[blk] = fp32_to_fp16(d);
            M->tq2[blk].d = M->d16[blk];
            for (int e = 0; e < 256; ++e) {
                const size_t j = (size_t) r * K + b * 256 + e;
                int t = 0;
                if (rndf() >= z) t = (rnd() & 1) ? -1 : 1;
                M->tq2[blk].qs[(e / 128) * 32 + e % 32] |= (uint8_t) ((t + 1) << (2 * ((e % 128) / 32)));
                if (t) {
                    M->bitmap[j / 8] |= (uint8_t) (1u << (j % 8));
                    if (t < 0) M->signs[pos / 8] |= (uint8_t) (1u << (pos % 8));
                    pos++;
                }
            }
        }
        pos = (pos + 7) / 8 * 8;
    }
    M->off[rows] = (uint32_t) (pos / 8);
    M->bitcos_bytes = nbits / 8 + M->off[rows] + 8 + 4 * (size_t) (rows + 1) + 2 * (nbits / 256);
    M->tq2_bytes = (nbits / 256) * sizeof(tq2_block);
}

static void make_q8K(bitcos_block_q8_K * y, int K) {
    for (int b = 0; b < K / 256; ++b) {
        y[b].d = (float) (0.5 + rndf()) * 0.02f;
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) {
                const int v = (int) (rnd() % 255) - 127;
                y[b].qs[16 * g + i] = (int8_t) v;
                sum += v;
            }
            y[b].bsums[g] = (int16_t) sum;
        }
    }
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static bitcos_lut_block * lutbuf;

// kind: 0 avx2_tq2, 1 tq2_0 avx2, 2 lut16, 3 lut32; prep: 0 none (tables ready), 1 once per call, 2 once per tile
static void gemv(const matrix * M, const bitcos_block_q8_K * y, float * out, int kind, int prep) {
    const int K = M->K;
    if (kind == 0) {
        for (int r = 0; r < M->rows; ++r)
            bitcos_vec_dot_q8_K_avx2_tq2(K, out + r, M->bitmap + (size_t) r * (K / 8), M->signs + M->off[r],
                                         M->d16 + (size_t) r * (K / 256), 0.0f, y);
    } else if (kind == 1) {
        for (int r = 0; r < M->rows; ++r) tq2_vec_dot_q8_K_avx2(K, out + r, M->tq2 + (size_t) r * (K / 256), y);
    } else {
        const int T = kind == 2 ? 16 : 32;
        if (prep == 1) bitcos_lut_prep(K, y, lutbuf);
        for (int r0 = 0; r0 < M->rows; r0 += T) {
            if (prep == 2) bitcos_lut_prep(K, y, lutbuf);
            const uint8_t * bm[32]; const uint8_t * sg[32]; const uint16_t * dd[32];
            for (int r = 0; r < T; ++r) {
                bm[r] = M->bitmap + (size_t) (r0 + r) * (K / 8);
                sg[r] = M->signs + M->off[r0 + r];
                dd[r] = M->d16 + (size_t) (r0 + r) * (K / 256);
            }
            if (T == 16) bitcos_vec_dot_lut16(K, out + r0, bm, sg, dd, lutbuf, y);
            else bitcos_vec_dot_lut32(K, out + r0, bm, sg, dd, lutbuf, y);
        }
    }
}

static const char * names[] = { "bitcos avx2_tq2", "tq2_0 avx2 (yardstick)", "lut16", "lut32", "lut16 + prep/16 rows", "lut32 + prep/32 rows" };
static const int kinds[] = { 0, 1, 2, 3, 2, 3 }, preps[] = { 0, 0, 0, 0, 2, 2 };
#define NK 6

int main(int argc, char ** argv) {
    const double z = argc > 1 ? atof(argv[1]) : 0.42;
    const int layers = argc > 2 ? atoi(argv[2]) : 24;
    const int K = argc > 3 ? atoi(argv[3]) : 2560;
    const int R = 6912;
    double tsc_hz;
    {
        const double t0 = now_ns(); const uint64_t c0 = __rdtsc();
        while (now_ns() - t0 < 2e8) { }
        tsc_hz = (double) (__rdtsc() - c0) / ((now_ns() - t0) * 1e-9);
    }
    printf("z = %.2f, K = %d, TSC %.3f GHz, 1 thread\n", z, K, tsc_hz / 1e9);

    bitcos_block_q8_K * y = aligned_alloc(64, (K / 256 * sizeof(bitcos_block_q8_K) + 63) / 64 * 64);
    make_q8K(y, K);
    lutbuf = aligned_alloc(64, (K / 256) * sizeof(bitcos_lut_block));

    // ---- prep cost alone ----
    {
        double best = 1e30;
        for (int rep = 0; rep < 2001; ++rep) {
            const uint64_t t0 = __rdtsc();
            bitcos_lut_prep(K, y, lutbuf);
            __asm__ volatile("" ::: "memory");
            const double t = (double) (__rdtsc() - t0);
            if (t < best) best = t;
        }
        printf("bitcos_lut_prep: %.0f ns per column of %d (%.1f ns per 256-block), tables %zu bytes\n",
               best / tsc_hz * 1e9, K, best / tsc_hz * 1e9 / (K / 256), (K / 256) * sizeof(bitcos_lut_block));
    }

    // ---- L1/L2-resident: 32 rows ----
    matrix one;
    make_matrix(&one, K, 32, z);
    float ref[32], res[NK][32];
    for (int r = 0; r < 32; ++r)
        bitcos_vec_dot_q8_K_tq2order(K, &ref[r], one.bitmap + (size_t) r * (K / 8), one.signs + one.off[r],
                                     one.d16 + (size_t) r * (K / 256), 0.0f, y);
    printf("\nCache-resident (32 rows of %d, %.0f%% zeros; BITCOS %zu B, TQ2_0 %zu B, LUT tables %zu B), per 32 weights:\n",
           K, z * 100, one.bitcos_bytes, one.tq2_bytes, (K / 256) * sizeof(bitcos_lut_block));
    printf("  %-24s %8s %8s  %s\n", "kernel", "ns", "vs tq2", "result vs tq2order");
    const long iters = 200;
    double best[NK];
    for (int k = 0; k < NK; ++k) best[k] = 1e30;
    bitcos_lut_prep(K, y, lutbuf);
    for (int rep = 0; rep < 301; ++rep) {
        for (int k = 0; k < NK; ++k) {
            const uint64_t t0 = __rdtsc();
            for (long it = 0; it < iters; ++it) {
                gemv(&one, y, res[k], kinds[k], preps[k]);
                __asm__ volatile("" ::: "memory");
            }
            const double t = (double) (__rdtsc() - t0);
            if (t < best[k]) best[k] = t;
        }
    }
    for (int k = 0; k < NK; ++k) {
        const double ns = best[k] / tsc_hz * 1e9 / iters / (32.0 * K / 32);
        const double ns0 = best[0] / tsc_hz * 1e9 / iters / (32.0 * K / 32);
        const char * v = k == 1 ? "close (lane order)" : (memcmp(ref, res[k], sizeof(ref)) == 0 ? "bit-exact" : "MISMATCH");
        printf("  %-24s %8.3f %8.2fx  %s\n", names[k], ns, ns0 / ns, v);
    }

    if (layers <= 0) return 0;
    // ---- DRAM-resident ----
    matrix big;
    make_matrix(&big, K, R * layers, z);
    const long rows = (long) R * layers;
    float * out = malloc(sizeof(float) * rows), * outref = malloc(sizeof(float) * rows);
    for (long r = 0; r < rows; ++r)
        bitcos_vec_dot_q8_K_tq2order(K, &outref[r], big.bitmap + (size_t) r * (K / 8), big.signs + big.off[r],
                                     big.d16 + (size_t) r * (K / 256), 0.0f, y);
    printf("\nDRAM-resident (%d x %d rows of %d: BITCOS %.1f MB, TQ2_0 %.1f MB), per 32 weights:\n",
           layers, R, K, big.bitcos_bytes / 1e6, big.tq2_bytes / 1e6);
    printf("  %-24s %8s %8s %8s  %s\n", "kernel", "ns", "vs tq2", "GB/s", "result vs tq2order");
    double bd[4] = { 1e30, 1e30, 1e30, 1e30 };
    int bad[4] = { 0, 0, 0, 0 };
    for (int rep = 0; rep < 7; ++rep) {
        for (int k = 0; k < 4; ++k) {
            const double t0 = now_ns();
            gemv(&big, y, out, k, 1);
            const double t = now_ns() - t0;
            if (t < bd[k]) bd[k] = t;
            if (k != 1) for (long r = 0; r < rows; ++r) bad[k] += memcmp(&out[r], &outref[r], 4) != 0;
        }
    }
    const double n32 = (double) K * rows / 32;
    for (int k = 0; k < 4; ++k) {
        const double bytes = k == 1 ? (double) big.tq2_bytes : (double) big.bitcos_bytes;
        printf("  %-24s %8.3f %8.2fx %8.2f  %s\n", k == 2 ? "lut16 (+prep per pass)" : k == 3 ? "lut32 (+prep per pass)" : names[k], bd[k] / n32, bd[0] / bd[k], bytes / bd[k],
               k == 1 ? "close (lane order)" : (bad[k] ? "MISMATCH" : "bit-exact"));
    }
    return 0;
}
