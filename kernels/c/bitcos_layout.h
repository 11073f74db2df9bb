// BITCOS <-> TQ2_0 blocks, for the load-time TQ2_0 layout (bitcos_select_layout
// in bitcos_select.h; llama.cpp patch 0011, ggml-cpu/bitcos/bitcos-layout.cpp):
// a BITCOS weight with fp16 scales per 256 weights is decoded once at load into
// the TQ2_0 blocks its values and scales have, and ggml's own TQ2_0 kernels
// multiply it from then on. A BITCOS file repacked from TQ2_0 gets back its
// source's bytes, so the results are bit-identical to the source's.
//
// TQ2_0 block (ggml-common.h, block_tq2_0; 66 bytes per 256 weights):
// uint8_t qs[64]; ggml_half d. Weight e of the block is code
// (qs[(e/128)*32 + e%32] >> 2*((e%128)/32)) & 3 = t + 1.

#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITCOS_TQ2_0_BLOCK_BYTES 66

// The row-index check of the model loader (llama.cpp patch 0003,
// check_bitcos_index), for nrows rows of n weights (n a multiple of 64):
// rows[0] == 0, and each row r's sign stream [rows[r], rows[r+1]) is exactly
// ceil(popcount(bitmap row r) / 8) bytes and ends at least 8 bytes before
// sign_bytes (the tail the kernels may read). Returns -1 when it holds, else
// the first row r where it fails (0 also when rows[0] != 0). Reads the
// bitmap and rows[0..nrows] only. After it returns -1, every sign read of the
// kernels and of bitcos_to_tq2_0 stays inside the sign stream.
int64_t bitcos_check_rows(int64_t nrows, int n, const uint8_t * bitmap, const int32_t * rows, int64_t sign_bytes);

// One row of n weights (n a multiple of 256) to n/256 TQ2_0 blocks at dst,
// block b's d = d16[b] (the fp16 bits, unchanged). codes: n bytes of
// scratch; the row is first decoded whole into codes (bitcos_row_codes, the
// batch path's decode), then packed, so dst may overlap this row's bitmap
// (not its signs, d16 or codes).
void bitcos_row_to_tq2_0(int n, uint8_t * dst, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16,
                         uint8_t * codes);

// A whole tensor: bitcos_check_rows, then, when it returns -1, every row r to
// TQ2_0 blocks at dst + r*(n/256)*66 with its scales d16 + r*(n/256). Returns
// the check's result; dst is untouched when it is not -1.
// In place: the bitmap may sit at the tail of dst's nrows*(n/256)*66 bytes
// (bitmap == dst + nrows*(n/256)*34). Row r's blocks then end
// 34*(n/256)*(nrows-1-r) bytes before bitmap row r+1 starts, and row r's own
// bitmap is read whole before its blocks are written: no byte is written
// before it is read.
int64_t bitcos_to_tq2_0(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                        const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, uint8_t * codes);

// Back: one row's n/256 TQ2_0 blocks at src to its BITCOS bitmap (n/8 bytes),
// sign stream (ceil(nnz/8) bytes, padding bits zero; signs must hold n/8
// bytes) and fp16 scales (n/256). Returns the sign stream's length in bytes.
// Code 3 (not ternary; never written by bitcos_row_to_tq2_0) reads as +1.
int bitcos_row_from_tq2_0(int n, const uint8_t * src, uint8_t * bitmap, uint8_t * signs, uint16_t * d16);

// Only the bitmap of one row (n/8 bytes) from its TQ2_0 blocks, 64 bits at a
// time (a weight is present when its code is not 1): what reading a
// converted weight's bitmap back costs (the loader's check reads it).
void bitcos_row_presence_tq2_0(int n, const uint8_t * src, uint8_t * bitmap);

// The one-column kernel of the converted weights (bitcos_tq2_0_vnni.c): n
// weights of TQ2_0 blocks x at x times a block_q8_K column y, every bit of
// ggml's x86 ggml_vec_dot_tq2_0_q8_K on the same bytes. The AVX-512 VNNI
// build, where bitcos_have_tq2_0_vnni() says it was compiled; else scalar.
int  bitcos_have_tq2_0_vnni(void);
void bitcos_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);

#ifdef __cplusplus
}
#endif
