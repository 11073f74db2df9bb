// Batched BITCOS x Q8_K (bitcos_gemm.c, prompt processing) against the TQ2_0
// AVX2 yardstick called per (row, column) as ggml's mul_mat calls its
// vec_dot, in core cycles per (row, column, 256-block).
//
//   kernels/c/bench/gemm.sh [K=2560] [z=0.42]     (builds with gcc, runs)
//
// Both are compiled as ggml compiles its CPU backend for an AVX2 build (-O3
// -mavx2 -mfma -mf16c -mbmi2, GCC's default FMA contraction), which puts
// tq2_vec_dot_q8_K_avx2 in TQ2_0's x86 float order: every gemm output must
// equal it bit for bit (checked; the run fails otherwise).
//
// Work: 16 rows of K weights at zero density z (4 panels) times 64 Q8_K
// columns, ggml's chunk of a BITCOS batch (patch 0012). Modes:
//   tq2_0   tq2_vec_dot_q8_K_avx2 per (row, column), columns in blocks of 16
//           (ggml's mul_mat blocking), rows inner;
//   gemm    bitcos_gemm_panel (twice) + bitcos_gemm_q8_K per 8 rows (decode included);
//   tiles   bitcos_gemm_q8_K on panels decoded beforehand;
//   decode  bitcos_gemm_panel alone.
// Reported: the minimum over repetitions of TSC ticks per (row, column,
// block), and core cycles from the TSC scaled by a calibration loop of
// dependent adds (so they hold on a loaded machine only as long as the
// minimum run was undisturbed; run it more than once).

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "../bitcos_gemm.h"
#include "../bitcos_impl.h"
#include "tq2_0.h"
#include "rng.h"

#define ROWS 16
#define COLS 64
#define REPS 400


static double tsc_per_cycle(void) {
    uint64_t best = UINT64_MAX;
    for (int rep = 0; rep < 20; ++rep) {
        uint64_t x = 0;
        const uint64_t t0 = __rdtsc();
        for (long i = 0; i < 2000000; ++i) {
            __asm__ volatile ("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x)); // 4 dependent adds: 4 cycles
        }
        const uint64_t t = __rdtsc() - t0;
        best = t < best ? t : best;
    }
    return (double) best / (4.0 * 2000000);
}

typedef struct {
    int K, nb;
    uint8_t * bitmap[ROWS];
    uint8_t * signs[ROWS];
    uint16_t * d16[ROWS];
    tq2_block * tq2[ROWS];
    bitcos_block_q8_K * y[COLS];
    uint8_t * panels[ROWS / 4];
    uint8_t * panel;
    float out[COLS][ROWS], want[COLS][ROWS];
} work;

static void make(work * w, int K, double z) {
    w->K = K;
    w->nb = K / 256;
    for (int r = 0; r < ROWS; ++r) {
        w->bitmap[r] = calloc(K / 8, 1);
        w->signs[r] = calloc(K / 8 + 16, 1); // kernels read up to 8 bytes past the last sign byte
        w->d16[r] = calloc(w->nb, 2);
        w->tq2[r] = calloc(w->nb, sizeof(tq2_block));
        size_t pos = 0;
        for (int b = 0; b < w->nb; ++b) {
            w->d16[r][b] = _cvtss_sh((float) (0.5 + rndf()) * 0.01f, 0);
            w->tq2[r][b].d = w->d16[r][b];
            for (int e = 0; e < 256; ++e) {
                const int j = 256 * b + e;
                int t = 0;
                if (rndf() >= z) t = (rnd() & 1) ? -1 : 1;
                w->tq2[r][b].qs[(e / 128) * 32 + e % 32] |= (uint8_t) ((t + 1) << (2 * ((e % 128) / 32)));
                if (t) {
                    w->bitmap[r][j / 8] |= (uint8_t) (1u << (j % 8));
                    if (t < 0) w->signs[r][pos / 8] |= (uint8_t) (1u << (pos % 8));
                    pos++;
                }
            }
        }
    }
    for (int j = 0; j < COLS; ++j) {
        w->y[j] = calloc(w->nb, sizeof(bitcos_block_q8_K));
        for (int b = 0; b < w->nb; ++b) {
            w->y[j][b].d = (float) (0.5 + rndf()) * 0.02f;
            for (int g = 0; g < 16; ++g) {
                int sum = 0;
                for (int i = 0; i < 16; ++i) {
                    const int v = (int) (rnd() % 255) - 127;
                    w->y[j][b].qs[16 * g + i] = (int8_t) v;
                    sum += v;
                }
                w->y[j][b].bsums[g] = (int16_t) sum;
            }
        }
    }
    // the panels back to back: bitcos_gemm_q8_K takes two at a time
    uint8_t * all = aligned_alloc(64, ROWS / 4 * BITCOS_GEMM_PANEL_SIZE(K));
    for (int p = 0; p < ROWS / 4; ++p) {
        w->panels[p] = all + (size_t) p * BITCOS_GEMM_PANEL_SIZE(K);
    }
    w->panel = aligned_alloc(64, 2 * BITCOS_GEMM_PANEL_SIZE(K));
}

static void decode(work * w, int p, uint8_t * panel) {
    const uint8_t * bm[4] = { w->bitmap[4*p], w->bitmap[4*p + 1], w->bitmap[4*p + 2], w->bitmap[4*p + 3] };
    const uint8_t * sg[4] = { w->signs[4*p], w->signs[4*p + 1], w->signs[4*p + 2], w->signs[4*p + 3] };
    const uint16_t * d[4] = { w->d16[4*p], w->d16[4*p + 1], w->d16[4*p + 2], w->d16[4*p + 3] };
    bitcos_gemm_panel(w->K, panel, 4, bm, sg, d, 0.0f);
}

// rows 8q..8q+7: panels 2q and 2q+1, back to back at panel
static void multiply(work * w, int q, const uint8_t * panel) {
    const void * ys[COLS];
    float * s[COLS];
    for (int j = 0; j < COLS; ++j) {
        ys[j] = w->y[j];
        s[j] = w->out[j] + 8*q;
    }
    bitcos_gemm_q8_K(w->K, 8, COLS, panel, ys, s);
}

enum { TQ2_0, GEMM, TILES, DECODE };

static void run(work * w, int mode) {
    switch (mode) {
    case TQ2_0:
        for (int j0 = 0; j0 < COLS; j0 += 16) {
            for (int j = j0; j < j0 + 16; ++j) {
                for (int r = 0; r < ROWS; ++r) {
                    tq2_vec_dot_q8_K_avx2(w->K, &w->out[j][r], w->tq2[r], w->y[j]);
                }
            }
        }
        break;
    case GEMM:
        for (int q = 0; q < ROWS / 8; ++q) {
            decode(w, 2*q, w->panel);
            decode(w, 2*q + 1, w->panel + BITCOS_GEMM_PANEL_SIZE(w->K));
            multiply(w, q, w->panel);
        }
        break;
    case TILES:
        for (int q = 0; q < ROWS / 8; ++q) {
            multiply(w, q, w->panels[2*q]);
        }
        break;
    case DECODE:
        for (int p = 0; p < ROWS / 4; ++p) {
            decode(w, p, w->panel);
        }
        break;
    }
}

int main(int argc, char ** argv) {
    const int K = argc > 1 ? atoi(argv[1]) : 2560;
    const double z = argc > 2 ? atof(argv[2]) : 0.42;
    if (K < 256 || K % 256) {
        fprintf(stderr, "K must be a positive multiple of 256\n");
        return 64;
    }
    static work w;
    make(&w, K, z);
    for (int p = 0; p < ROWS / 4; ++p) {
        decode(&w, p, w.panels[p]);
    }
    // the yardstick, then every gemm output against it, bit for bit
    run(&w, TQ2_0);
    memcpy(w.want, w.out, sizeof(w.out));
    for (int mode = GEMM; mode <= TILES; ++mode) {
        memset(w.out, 0xff, sizeof(w.out));
        run(&w, mode);
        if (memcmp(w.out, w.want, sizeof(w.out)) != 0) {
            fprintf(stderr, "gemm output differs from tq2_vec_dot_q8_K_avx2 (mode %d)\n", mode);
            return 1;
        }
    }
    const double c = tsc_per_cycle();
    static const char * names[] = { "tq2_0", "gemm", "tiles", "decode" };
    const double units = (double) ROWS * COLS * w.nb;
    printf("bitcos_gemm isa %d, K = %d, z = %.2f, %d rows x %d columns, TSC/core cycle %.3f\n", bitcos_gemm_isa(), K, z, ROWS,
           COLS, c);
    double cyc[4];
    for (int mode = TQ2_0; mode <= DECODE; ++mode) {
        uint64_t best = UINT64_MAX;
        for (int rep = 0; rep < REPS; ++rep) {
            const uint64_t t0 = __rdtsc();
            run(&w, mode);
            const uint64_t t = __rdtsc() - t0;
            best = t < best ? t : best;
        }
        cyc[mode] = best / units / c;
        printf("  %-7s %6.3f TSC ticks = %5.2f core cycles per (row, column, block)", names[mode], best / units, cyc[mode]);
        if (mode == GEMM || mode == TILES) {
            printf(", %.2fx tq2_0", cyc[TQ2_0] / cyc[mode]);
        }
        printf("\n");
    }
    return 0;
}
