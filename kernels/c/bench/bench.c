// BITCOS vs TQ2_0 dot-product benchmark and cross-check (single column GEMV).
//
//   kernels/c/bench/run.sh [z] [threads]      (builds with gcc, runs)
//
// Data: random ternary rows at zero density z (default 0.42), random fp16
// scales per 256, random Q8_K activations; encoded as BITCOS (bitmap, sign
// streams with a row index, 8-byte zero tail) and as TQ2_0 with the same
// values and scales. Every kernel's result is checked against the generic
// BITCOS kernel (bit-exact), and the generic TQ2_0 kernel must equal it too;
// the kernels in TQ2_0's x86 float order (tq2order, avx2_tq2, avx512_tq2, and
// "tq2_0 blocks vnni", bitcos_tq2_0_vnni.c on the TQ2_0 copy)
// against bitcos_vec_dot_q8_K_tq2order, bit-exact. (The "tq2_0 avx2"
// yardstick here is compiled with -ffp-contract=off: ggml's lanes with a
// separate multiply and add, not the FMA that GCC emits inside llama.cpp.)
//
// L1: one 2560-weight row, dotted again and again (bitmap, signs and
//     activations stay in L1).
// DRAM: a stack of 6912 x 2560 matrices larger than the last-level cache,
//     every row once per pass (GEMV); the activation column stays in L1.
// Reported: core cycles and ns per 32 weights, and GB/s of weight bytes read
// (BITCOS: bitmap + signs + row index + fp16 scales; TQ2_0: 66 B / 256).
// Core cycles come from the TSC scaled by a calibration loop of dependent adds.

#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "../bitcos.h"
#include "../bitcos_tq2fast.h"
#include "tq2_0.h"
#include "rng.h"
#include "../bitcos_layout.h"


static uint16_t fp32_to_fp16(float f) { return _cvtss_sh(f, 0); }

typedef struct {
    int K, rows;
    uint8_t  * bitmap;  // rows*K/8
    uint8_t  * signs;   // off[rows] + 8
    uint32_t * off;     // rows+1
    uint16_t * d16;     // rows*K/256
    tq2_block * tq2;    // rows*K/256
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
    size_t pos = 0; // sign bit position, whole tensor
    for (int r = 0; r < rows; ++r) {
        M->off[r] = (uint32_t) (pos / 8);
        for (int b = 0; b < K / 256; ++b) {
            const size_t blk = (size_t) r * (K / 256) + b;
            float d = (float) (0.5 + rndf()) * 0.01f;
            if (rnd() % 97 == 0) d = 0.0f; // a zero-scale block now and then
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
        pos = (pos + 7) / 8 * 8; // rows start on a byte
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

typedef struct { const char * name; bitcos_vec_dot_t fn; int ok; int tq2; } bvariant; // tq2: TQ2_0 float order (checked against tq2order)
typedef void (*tq2_fn)(int, float *, const tq2_block *, const void *);
static void tq2_blocks_vnni(int n, float * s, const tq2_block * x, const void * y) { bitcos_tq2_0_vec_dot_q8_K_vnni(n, s, x, y); }
typedef struct { const char * name; tq2_fn fn; int exact; int tq2; int ok; } tvariant; // tq2: TQ2_0 x86 float order

static double tsc_per_cycle; // TSC ticks per core cycle
static double tsc_hz, core_hz;

static void calibrate(void) {
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
        uint64_t x = 0;
        const long iters = 20000000;
        const uint64_t t0 = __rdtsc();
        for (long i = 0; i < iters; ++i) {
            __asm__ volatile(
                "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                : "+r"(x));
        }
        const double r = (double) (__rdtsc() - t0) / (10.0 * iters);
        if (r < best) best = r;
    }
    tsc_per_cycle = best;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    const uint64_t t0 = __rdtsc();
    do { clock_gettime(CLOCK_MONOTONIC, &b); } while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 2e8);
    const uint64_t t1 = __rdtsc();
    tsc_hz = (double) (t1 - t0) / (((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) * 1e-9);
    core_hz = tsc_hz / tsc_per_cycle;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

// ---- GEMV over a matrix, optionally split over threads ----
typedef struct {
    const matrix * M; const bitcos_block_q8_K * y; float * out;
    int r0, r1; bitcos_vec_dot_t bfn; tq2_fn tfn;
} job;

static void * run_job(void * p) {
    const job * J = p;
    const matrix * M = J->M;
    const int K = M->K;
    if (J->bfn) {
        for (int r = J->r0; r < J->r1; ++r) {
            J->bfn(K, J->out + r, M->bitmap + (size_t) r * (K / 8), M->signs + M->off[r],
                   M->d16 + (size_t) r * (K / 256), 0.0f, J->y);
        }
    } else {
        for (int r = J->r0; r < J->r1; ++r) {
            J->tfn(K, J->out + r, M->tq2 + (size_t) r * (K / 256), J->y);
        }
    }
    return NULL;
}

static double gemv(const matrix * M, const bitcos_block_q8_K * y, float * out, bitcos_vec_dot_t bfn, tq2_fn tfn, int nthreads) {
    pthread_t th[16];
    job jobs[16];
    const double t0 = now_ns();
    for (int t = 0; t < nthreads; ++t) {
        jobs[t] = (job) { M, y, out, (int) ((long) M->rows * t / nthreads), (int) ((long) M->rows * (t + 1) / nthreads), bfn, tfn };
        if (t) pthread_create(&th[t], NULL, run_job, &jobs[t]);
    }
    run_job(&jobs[0]);
    for (int t = 1; t < nthreads; ++t) pthread_join(th[t], NULL);
    return now_ns() - t0;
}

// the clmul kernel reads a permuted copy of the activations, made once per
// column (here: once for the one y of the run)
static int8_t * clmul_qp;
static void clmul_dot(int n, float * s, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16, float d32, const void * y) {
    bitcos_vec_dot_q8_K_avx2_clmul(n, s, bitmap, signs, d16, d32, y, clmul_qp);
}

int main(int argc, char ** argv) {
    const double z = argc > 1 ? atof(argv[1]) : 0.42;
    const int nthreads = argc > 2 ? atoi(argv[2]) : 1;
    const int layers = argc > 3 ? atoi(argv[3]) : 24;
    const int K = 2560, R = 6912;

    bvariant bv[] = {
        { "bitcos generic",     bitcos_vec_dot_q8_K_generic,     1, 0 },
        { "bitcos tq2order",    bitcos_vec_dot_q8_K_tq2order,    1, 1 },
        { "bitcos avx2_tq2",    bitcos_vec_dot_q8_K_avx2_tq2,    bitcos_have_avx2_tq2() && __builtin_cpu_supports("fma"), 1 },
        { "bitcos nopdep_tq2",  bitcos_vec_dot_q8_K_avx2_nopdep_tq2, bitcos_have_avx2_nopdep_tq2() && __builtin_cpu_supports("fma"), 1 },
        { "bitcos avx2_clmul",  clmul_dot,                       bitcos_have_avx2_clmul() && __builtin_cpu_supports("fma") && __builtin_cpu_supports("pclmul"), 1 },
        { "bitcos avx512_tq2",  bitcos_vec_dot_q8_K_avx512_tq2,  bitcos_have_avx512_tq2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("fma"), 1 },
    };
    tvariant tv[] = {
        { "tq2_0 generic",    tq2_vec_dot_q8_K_generic,    1, 0, 1 },
        { "tq2_0 avx2",       tq2_vec_dot_q8_K_avx2,       0, 0, 1 },
        { "tq2_0 avx2_exact", tq2_vec_dot_q8_K_avx2_exact, 1, 0, 1 },
        // the one-column kernel of BITCOS weights converted to TQ2_0 blocks at load
        { "tq2_0 blocks vnni", tq2_blocks_vnni, 1, 1, bitcos_have_tq2_0_vnni() && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") },
    };
    const int nbv = sizeof(bv) / sizeof(bv[0]), ntv = sizeof(tv) / sizeof(tv[0]);

    calibrate();
    printf("z = %.2f, K = %d, TSC %.3f GHz, core ~%.3f GHz (calibrated), threads = %d\n", z, K, tsc_hz / 1e9, core_hz / 1e9, nthreads);

    // ---- L1-resident: one row ----
    matrix one;
    make_matrix(&one, K, 1, z);
    bitcos_block_q8_K * y = aligned_alloc(64, (K / 256 * sizeof(bitcos_block_q8_K) + 63) / 64 * 64);
    make_q8K(y, K);
    clmul_qp = malloc(BITCOS_CLMUL_QP_SIZE(K));
    bitcos_q8_K_perm_clmul(K, clmul_qp, y);
    float ref, ref_tq2;
    bitcos_vec_dot_q8_K_generic(K, &ref, one.bitmap, one.signs, one.d16, 0.0f, y);
    bitcos_vec_dot_q8_K_tq2order(K, &ref_tq2, one.bitmap, one.signs, one.d16, 0.0f, y);

    printf("\nL1-resident (one row of %d, %.0f%% zeros), per 32 weights:\n", K, z * 100);
    printf("  %-20s %8s %8s %10s  %s\n", "kernel", "cycles", "ns", "GB/s", "result");
    // Short trials, round robin over the kernels, best of many: the machine
    // is shared, and this way every kernel sees the same quiet moments.
    const long iters = 5000;
    double best[16];
    float res[16];
    for (int i = 0; i < nbv + ntv; ++i) best[i] = 1e30;
    for (int rep = 0; rep < 201; ++rep) {
        for (int i = 0; i < nbv + ntv; ++i) {
            const int isb = i < nbv;
            if (isb ? !bv[i].ok : !tv[i - nbv].ok) continue;
            const int slow = isb ? (bv[i].fn == bitcos_vec_dot_q8_K_generic || bv[i].fn == bitcos_vec_dot_q8_K_tq2order)
                                 : (tv[i - nbv].fn == tq2_vec_dot_q8_K_generic);
            if (slow && rep >= 3) continue; // the scalar ones: a few trials
            float r = 0;
            const uint64_t t0 = __rdtsc();
            for (long it = 0; it < iters; ++it) {
                if (isb) bv[i].fn(K, &r, one.bitmap, one.signs, one.d16, 0.0f, y);
                else tv[i - nbv].fn(K, &r, one.tq2, y);
                __asm__ volatile("" ::: "memory");
            }
            const double t = (double) (__rdtsc() - t0);
            if (t < best[i]) best[i] = t;
            res[i] = r;
        }
    }
    for (int i = 0; i < nbv + ntv; ++i) {
        const int isb = i < nbv;
        if (isb ? !bv[i].ok : !tv[i - nbv].ok) { printf("  %-20s (not available on this CPU/build)\n", isb ? bv[i].name : tv[i - nbv].name); continue; }
        const int tq2 = isb ? bv[i].tq2 : tv[i - nbv].tq2;
        const double cyc = best[i] / tsc_per_cycle / iters / (K / 32);
        const double sec_per_call = best[i] / tsc_hz / iters;
        const double bytes = isb ? (double) one.bitcos_bytes : (double) one.tq2_bytes;
        const int exact = isb || tv[i - nbv].exact;
        uint32_t rb, fb; memcpy(&rb, tq2 ? &ref_tq2 : &ref, 4); memcpy(&fb, &res[i], 4);
        printf("  %-20s %8.2f %8.3f %10.2f  %s\n", isb ? bv[i].name : tv[i - nbv].name, cyc,
               sec_per_call * 1e9 / (K / 32), bytes / sec_per_call / 1e9,
               rb == fb ? "bit-exact" : (exact ? "MISMATCH" : "close (lane order)"));
        if (exact && rb != fb) { printf("    got %.9g want %.9g\n", res[i], tq2 ? ref_tq2 : ref); }
    }

    // ---- DRAM-resident: many matrices ----
    matrix big;
    make_matrix(&big, K, R * layers, z);
    float * out = malloc(sizeof(float) * R * layers), * outref = malloc(sizeof(float) * R * layers);
    float * outref_tq2 = malloc(sizeof(float) * R * layers);
    gemv(&big, y, outref, bitcos_vec_dot_q8_K_generic, NULL, nthreads);
    gemv(&big, y, outref_tq2, bitcos_vec_dot_q8_K_tq2order, NULL, nthreads);
    printf("\nDRAM-resident (%d x %d rows of %d: BITCOS %.1f MB, TQ2_0 %.1f MB), per 32 weights:\n",
           layers, R, K, big.bitcos_bytes / 1e6, big.tq2_bytes / 1e6);
    printf("  %-20s %8s %8s %10s  %s\n", "kernel", "cycles", "ns", "GB/s", "result");
    for (int i = 0; i < nbv + ntv; ++i) {
        const int isb = i < nbv;
        if (isb ? !bv[i].ok : !tv[i - nbv].ok) continue;
        if (isb && bv[i].fn == bitcos_vec_dot_q8_K_generic) continue;
        if (isb && bv[i].fn == bitcos_vec_dot_q8_K_tq2order) continue;
        if (!isb && tv[i - nbv].fn == tq2_vec_dot_q8_K_generic) continue;
        double best = 1e30;
        for (int rep = 0; rep < 5; ++rep) {
            const double t = gemv(&big, y, out, isb ? bv[i].fn : NULL, isb ? NULL : tv[i - nbv].fn, nthreads);
            if (t < best) best = t;
        }
        const double n32 = (double) K * R * layers / 32;
        const double bytes = isb ? (double) big.bitcos_bytes : (double) big.tq2_bytes;
        const int exact = isb || tv[i - nbv].exact;
        int bad = 0;
        const float * want = (isb ? bv[i].tq2 : tv[i - nbv].tq2) ? outref_tq2 : outref;
        for (long r = 0; r < (long) R * layers; ++r) bad += memcmp(&out[r], &want[r], 4) != 0;
        printf("  %-20s %8.2f %8.3f %10.2f  %s\n", isb ? bv[i].name : tv[i - nbv].name,
               best * 1e-9 * core_hz / n32 * nthreads, best / n32 * nthreads, bytes / best,
               bad == 0 ? "bit-exact" : (exact ? "MISMATCH" : "close (lane order)"));
    }
    return 0;
}
