// Multi-row table-lookup (T-MAC style) BITCOS x Q8_K kernel, AVX2 + BMI2 +
// FMA + F16C, bit-exact with bitcos_vec_dot_q8_K_tq2order (ggml's x86 TQ2_0
// float order). Research prototype (/tmp/lut), see REPORT.md.
#pragma once
#include <stdint.h>
#include "bitcos.h"

#define BITCOS_LUT_ROWS 16

// Per activation column and 256-block: for each of the 64 groups of 4
// consecutive weights, the 16 subset sums T[idx] = sum_{t in idx} q[4g+t]
// split as T = 32*(h - 16) + l, l = T & 31 in 0..31, h = floor(T/32) + 16 in
// 0..31 (bytes 0..15: l table, 16..31: h table); corr[m] = 4096 + sum over
// E_m of q - bsums[2m] - bsums[2m+1] (the activation-only part of L_m plus
// the bias of the h tables).
typedef struct {
    uint8_t tab[64][32];
    int16_t corr[16]; // 8 used
} bitcos_lut_block;

_Static_assert(sizeof(bitcos_lut_block) == 2080, "lut block size");

// n/256 blocks of y -> n/256 bitcos_lut_block.
void bitcos_lut_prep(int n, const void * y, bitcos_lut_block * out);

// 16 rows x one column. s[r] bit-identical to
// bitcos_vec_dot_q8_K_tq2order(n, &s[r], bitmap[r], signs[r], d16[r], 0, y).
void bitcos_vec_dot_lut16(int n, float * s, const uint8_t * const * bitmap, const uint8_t * const * signs,
                          const uint16_t * const * d16, const bitcos_lut_block * lut, const void * y);


// 32 rows x one column (two 16-row tiles sharing the table loads).
void bitcos_vec_dot_lut32(int n, float * s, const uint8_t * const * bitmap, const uint8_t * const * signs,
                          const uint16_t * const * d16, const bitcos_lut_block * lut, const void * y);
