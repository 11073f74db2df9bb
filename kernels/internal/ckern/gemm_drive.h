// The test driver of bitcos_gemm.c, shared by ckern (scalar and AVX2 builds)
// and ckern512 (AVX-512 builds): every build runs the same loop, so the tests
// compare the builds and nothing else. Go's build cache keys ckern512 on its
// own directory: after editing this file, touch ../ckern512/gemm512.c (or
// go clean -cache), else ckern512 keeps the old driver.
#pragma once

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../c/bitcos_gemm.h"

typedef void (*ckern_gemm_panel_fn)(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                                    const uint16_t * const * d16, float d32);
typedef void (*ckern_gemm_panel_tq2_0_fn)(int n, void * panel, int nr, const void * const * rows, int f32);
typedef void (*ckern_gemm_fn)(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);

// The rows a drive decodes: BITCOS (pf; row r: bitmap + r*k/8, signs +
// off[r], d16 + r*k/256 or d32 when d16 is NULL) or, when tf is set, TQ2_0
// blocks (row r at tq2 + r*(k/256)*66), f32 blocks when f32 (68 bytes each).
struct ckern_gemm_rows {
    ckern_gemm_panel_fn pf;
    const uint8_t * bitmap;
    const uint8_t * signs;
    const uint32_t * off;
    const uint16_t * d16;
    float d32;
    ckern_gemm_panel_tq2_0_fn tf;
    const uint8_t * tq2;
    int f32;
};

// Rows r0..r0+nr-1 of w into panel.
static inline void ckern_gemm_decode(const struct ckern_gemm_rows * w, int k, void * panel, int r0, int nr) {
    if (w->tf) {
        const void * rows[BITCOS_GEMM_ROWS];
        for (int i = 0; i < nr; ++i) {
            rows[i] = w->tq2 + (size_t) (r0 + i) * (size_t) (k / 256) * (w->f32 ? 68 : 66);
        }
        w->tf(k, panel, nr, rows, w->f32);
        return;
    }
    const uint8_t * bm[BITCOS_GEMM_ROWS];
    const uint8_t * sg[BITCOS_GEMM_ROWS];
    const uint16_t * dd[BITCOS_GEMM_ROWS];
    for (int i = 0; i < nr; ++i) {
        bm[i] = w->bitmap + (size_t) (r0 + i) * (size_t) (k / 8);
        sg[i] = w->signs + w->off[r0 + i];
        dd[i] = w->d16 ? w->d16 + (size_t) (r0 + i) * (size_t) (k / 256) : NULL;
    }
    w->pf(k, panel, nr, bm, sg, w->d16 ? dd : NULL, w->d32);
}

// rows rows of k weights (w) in groups of prows rows (1..8; the last group
// may have fewer), each decoded into one panel of up to 4 rows or, past 4,
// two panels back to back (rows 4.. in the second), times ncols columns
// (column j: k/256 block_q8_K at ys + j*(k/256)*292): out[j*rows + r],
// ggml's dst layout. panels, when not NULL, receives every decoded panel's
// bytes in order (BITCOS_GEMM_PANEL_SIZE(k) each; a group of more than 4
// rows decodes two); each panel buffer is filled with 0xee before the
// decode, so a byte the decode does not write shows.
static inline void ckern_gemm_drive_rows(const struct ckern_gemm_rows * w, ckern_gemm_fn gf, int k, int rows, int prows,
                                         int ncols, const void * ys, float * out, uint8_t * panels) {
    const size_t psize = BITCOS_GEMM_PANEL_SIZE(k);
    const size_t colsize = (size_t) (k / 256) * 292;
    uint8_t * panel = aligned_alloc(64, 2 * psize);
    const void ** y = malloc(sizeof(void *) * (size_t) ncols);
    float ** s = malloc(sizeof(float *) * (size_t) ncols);
    for (int j = 0; j < ncols; ++j) {
        y[j] = (const uint8_t *) ys + (size_t) j * colsize;
    }
    size_t captured = 0;
    for (int r0 = 0; r0 < rows; r0 += prows) {
        const int nr = rows - r0 < prows ? rows - r0 : prows;
        memset(panel, 0xee, 2 * psize);
        for (int i0 = 0; i0 < nr; i0 += BITCOS_GEMM_ROWS) {
            const int nri = nr - i0 < BITCOS_GEMM_ROWS ? nr - i0 : BITCOS_GEMM_ROWS;
            uint8_t * pi = panel + (size_t) (i0 / BITCOS_GEMM_ROWS) * psize;
            ckern_gemm_decode(w, k, pi, r0 + i0, nri);
            if (panels) {
                memcpy(panels + captured, pi, psize);
                captured += psize;
            }
        }
        for (int j = 0; j < ncols; ++j) {
            s[j] = out + (size_t) j * (size_t) rows + r0;
        }
        gf(k, nr, ncols, panel, y, s);
    }
    free(s);
    free(y);
    free(panel);
}

// BITCOS rows, decoded by pf.
static inline void ckern_gemm_drive(ckern_gemm_panel_fn pf, ckern_gemm_fn gf, int k, int rows, int prows,
                                    const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                                    const uint16_t * d16, float d32, int ncols, const void * ys, float * out, uint8_t * panels) {
    const struct ckern_gemm_rows w = { pf, bitmap, signs, off, d16, d32, NULL, NULL, 0 };
    ckern_gemm_drive_rows(&w, gf, k, rows, prows, ncols, ys, out, panels);
}

// TQ2_0 rows (k/256 blocks of 66 bytes each, or f32 blocks of 68 when f32,
// one row after another at tq2), decoded by tf.
static inline void ckern_gemm_drive_tq2_0(ckern_gemm_panel_tq2_0_fn tf, ckern_gemm_fn gf, int k, int rows, int prows,
                                          const uint8_t * tq2, int f32, int ncols, const void * ys, float * out, uint8_t * panels) {
    const struct ckern_gemm_rows w = { NULL, NULL, NULL, NULL, NULL, 0.0f, tf, tq2, f32 };
    ckern_gemm_drive_rows(&w, gf, k, rows, prows, ncols, ys, out, panels);
}
