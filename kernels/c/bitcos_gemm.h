// Batched BITCOS x Q8_K (prompt processing): a panel of BITCOS_GEMM_ROWS
// rows decoded once into TQ2_0 code bytes c = t + 1, then multiplied with
// the activation columns a few at a time (a tile: BITCOS_GEMM_COLS in the
// AVX-512 path, 3 in the AVX2 path), in the float order of
// ggml's x86 TQ2_0 kernel (bitcos_tq2fast.h says it): every output is
// bit-identical to bitcos_vec_dot_q8_K_tq2order (kernels.VecDotQ8KTQ2Order)
// for the same row and column, whatever the path and the tile.
//
// Panel layout, per 256-block b (BITCOS_GEMM_BLOCK_BYTES bytes at
// panel + b * BITCOS_GEMM_BLOCK_BYTES), for row pairs p = 0, 1 (rows 2p and
// 2p+1 of the panel):
//   codes  at 512*p + 64*k, k = 0..7: 32 code bytes of row 2p for elements
//          32k..32k+31 of the block, then the same 32 elements of row 2p+1;
//   scales at 1024 + 64*p: 8 floats d_b of row 2p, then 8 of row 2p+1
//          (the fp16 scale converted, exact, or the per-tensor f32 scale).
// So one 512-bit vector holds one 32-element chunk of two rows: a vpdpbusd
// of it with a column's 32 activations broadcast to both halves gives, in
// int32 lane m and m + 8, the sums over E_m (elements with e%32 in
// [4m, 4m+4)) of c*q for the two rows: TQ2_0's 8 lanes of both rows, no
// fold. Rows past nr are padding (codes 1, scales 0; never written out).
//
// Paths (bitcos_gemm_isa says which one this translation unit compiled; the
// panel layout is the same in all of them):
//   AVX-512 F+BW (+BMI2, FMA): codes from k-masks; vpdpbusd with
//     AVX512-VNNI, else vpmaddubsw + vpaddw into 16-bit lanes; tiles of
//     two panels' 4 row pairs x 4 columns.
//   AVX2 (+FMA; BMI2 for the pdep decode): codes by byte spreads
//     (bitcos_tq2_step.h); vpdpbusd ymm with AVX-VNNI, else vpmaddubsw +
//     vpaddw; tiles of the panel's 4 rows (2 for panels of 1-2 rows) x 3
//     columns, each column chunk loaded once for the 4 rows.
//   scalar: any CPU, the same integers and float steps.

#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITCOS_GEMM_ROWS 4
// rows of one bitcos_gemm_q8_K call: two panels, one right after the other
#define BITCOS_GEMM_MAX_ROWS (2 * BITCOS_GEMM_ROWS)
#define BITCOS_GEMM_COLS 4 // the AVX-512 tile's columns
#define BITCOS_GEMM_BLOCK_BYTES 1152
// bytes of a panel of rows of n weights (n a multiple of 256)
#define BITCOS_GEMM_PANEL_SIZE(n) ((size_t) (n) / 256 * BITCOS_GEMM_BLOCK_BYTES)

enum bitcos_gemm_isa {
    BITCOS_GEMM_SCALAR      = 0,
    BITCOS_GEMM_AVX2        = 1,
    BITCOS_GEMM_AVX2_VNNI   = 2, // AVX-VNNI (VEX vpdpbusd ymm)
    BITCOS_GEMM_AVX512      = 3,
    BITCOS_GEMM_AVX512_VNNI = 4,
};

int bitcos_gemm_isa(void);

// Decodes rows 0..nr-1 (1 <= nr <= BITCOS_GEMM_ROWS) of n weights into
// panel (BITCOS_GEMM_PANEL_SIZE(n) bytes, 64-byte aligned is best): row i's
// bitmap at bitmap[i], its sign stream at signs[i] (read up to 8 bytes past
// its last sign byte, as every kernel), its fp16 scales at d16[i], or, when
// d16 is NULL, the per-tensor scale d32 for all rows.
void bitcos_gemm_panel(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                       const uint16_t * const * d16, float d32);

// The same panel, decoded without pdep (rank tables and vpshufb, as
// bitcos_nopdep.c): for CPUs where pdep is microcoded (AMD before Zen 3,
// where bitcos_select picks avx2_nopdep_tq2). Scalar builds decode bytewise
// in both.
void bitcos_gemm_panel_nopdep(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32);

// The same panel from rows in the TQ2_0 layout (a BITCOS weight converted at
// load, bitcos_layout.h; llama.cpp patch 0011): rows[i] points at row i's
// n/256 TQ2_0 blocks (66 bytes each: qs[64], then the fp16 d), or, when f32,
// f32 blocks (68 bytes: qs[64], then the f32 d). Writes exactly the bytes
// bitcos_gemm_panel writes for the BITCOS row of the same values and scales
// (bitcos_row_to_tq2_0 of it); reads nothing past the rows' blocks.
void bitcos_gemm_panel_tq2_0(int n, void * panel, int nr, const void * const * rows, int f32);

// s[j][i] = row i of the panels times column y[j] (block_q8_K, n weights),
// for i < nr (1 <= nr <= BITCOS_GEMM_MAX_ROWS) and j < nc (any nc >= 1):
// rows 0..3 in the panel at panel, rows 4..7 (when nr > 4) in the panel at
// panel + BITCOS_GEMM_PANEL_SIZE(n), each decoded by a bitcos_gemm_panel*
// call. The AVX-512 path multiplies both panels in one tile (8 rows x 4
// columns); the others one panel after the other.
void bitcos_gemm_q8_K(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);

#ifdef __cplusplus
}
#endif
