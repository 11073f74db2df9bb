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
//
// A weight with a per-tensor f32 scale (an I2_S source) has no exact fp16
// scale, so it gets "f32 blocks" (68 bytes per 256 weights): the same qs[64],
// then the f32 scale, copied into every block. Every kernel then finds the
// scale where it finds TQ2_0's d, through ggml's vec_dot signature (which
// carries no other context), and computes what the native kernel computes
// with that scale: y.d * d32, one rounding, as the native kernels form it
// (bitcos.h). Functions below take d16 == NULL (or f32 = 1) for them.

#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITCOS_TQ2_0_BLOCK_BYTES     66
#define BITCOS_TQ2_0_F32_BLOCK_BYTES 68
// bytes of one block: f32 blocks (1) or TQ2_0's (0)
#define BITCOS_TQ2_0_BLOCK_SIZE(f32) ((f32) ? BITCOS_TQ2_0_F32_BLOCK_BYTES : BITCOS_TQ2_0_BLOCK_BYTES)

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
// block b's d = d16[b] (the fp16 bits, unchanged); or, with d16 NULL, to
// n/256 f32 blocks, each d = d32 (its bits, unchanged). codes: n bytes of
// scratch; the row is first decoded whole into codes (bitcos_row_codes, the
// batch path's decode), then packed, so dst may overlap this row's bitmap
// (not its signs, d16 or codes).
void bitcos_row_to_tq2_0(int n, uint8_t * dst, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16,
                         float d32, uint8_t * codes);

// A whole tensor: bitcos_check_rows, then, when it returns -1, every row r to
// blocks of B bytes (B = BITCOS_TQ2_0_BLOCK_SIZE(d16 == NULL)) at
// dst + r*(n/256)*B with its scales d16 + r*(n/256), or d32. Returns the
// check's result; dst is untouched when it is not -1.
// In place: the bitmap may sit at the tail of dst's nrows*(n/256)*B bytes
// (bitmap == dst + nrows*(n/256)*(B-32)). Row r's blocks then end
// (B-32)*(n/256)*(nrows-1-r) bytes before bitmap row r+1 starts, and row r's
// own bitmap is read whole before its blocks are written: no byte is written
// before it is read.
int64_t bitcos_to_tq2_0(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                        const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, float d32, uint8_t * codes);

// Back: one row's n/256 blocks at src (f32 blocks when f32, else TQ2_0's) to
// its BITCOS bitmap (n/8 bytes), sign stream (ceil(nnz/8) bytes, padding bits
// zero; signs must hold n/8 bytes) and scales: n/256 fp16 values into d16, or
// block 0's f32 scale into *d32 (n >= 256). Returns the sign stream's length
// in bytes. Code 3 (not ternary; never written by bitcos_row_to_tq2_0) reads
// as +1.
int bitcos_row_from_tq2_0(int n, const uint8_t * src, int f32, uint8_t * bitmap, uint8_t * signs, uint16_t * d16,
                          float * d32);

// Only the bitmap of one row (n/8 bytes) from its blocks (f32 blocks when
// f32), 64 bits at a time (a weight is present when its code is not 1): what
// reading a converted weight's bitmap back costs (the loader's check reads it).
void bitcos_row_presence_tq2_0(int n, const uint8_t * src, int f32, uint8_t * bitmap);

// The one-column kernels of the converted weights: n weights of blocks x
// (TQ2_0's; the _f32 names: f32 blocks) times a block_q8_K column y, in the
// float order of the native kernel the rule chose (bitcos_select.h), so that
// the TQ2_0 layout changes no bit. On TQ2_0 blocks that is every bit of
// ggml's TQ2_0 vec_dot of that order; on f32 blocks, every bit of the native
// kernel with that f32 scale.
//
// x86 order (ggml's x86 TQ2_0 kernel, bitcos_tq2order.c):
//   bitcos_tq2_0_vnni.c, AVX-512 VNNI (64 codes per vpdpbusd), where
//   bitcos_have_tq2_0_vnni() says it was compiled; else the scalar reference;
int  bitcos_have_tq2_0_vnni(void);
void bitcos_tq2_0_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
void bitcos_tq2_0_f32_vec_dot_q8_K_vnni(int n, float * s, const void * x, const void * y);
//   bitcos_tq2_0_avx2.c, AVX2 + FMA: bitcos_have_tq2_0_avx2() is 2 with
//   AVX-VNNI (vpdpbusd ymm, 32 codes each), 1 with vpmaddubsw (ggml's own
//   steps), 0 where the build lacks AVX2 or FMA (the scalar reference then).
int  bitcos_have_tq2_0_avx2(void);
void bitcos_tq2_0_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y);
void bitcos_tq2_0_f32_vec_dot_q8_K_avx2(int n, float * s, const void * x, const void * y);
// ARM order (ggml's NEON TQ2_0 kernel): f32 blocks in bitcos_neon_tq2_0.c
// (NEON, sdot with dotprod; elsewhere the scalar reference); TQ2_0 blocks
// keep ggml's own kernel.
void bitcos_tq2_0_f32_vec_dot_q8_K_neon(int n, float * s, const void * x, const void * y);
//
// The scalar reference of every order (order: enum bitcos_order), any CPU.
void bitcos_tq2_0_vec_dot_q8_K_ref(int n, float * s, const void * x, int f32, int order, const void * y);

#ifdef __cplusplus
}
#endif
