#pragma once
#include <stddef.h>
#include "../../c/bitcos.h"
#include "../../c/bitcos_tq2fast.h"
#include "../../c/bench/tq2_0.h"
#include "../../c/bench/q2_0.h"
#include "../../c/bitcos_transcode.h"
#include "../../c/bitcos_layout.h"

enum {
    CKERN_GENERIC,
    CKERN_TQ2_GENERIC, CKERN_TQ2_AVX2, CKERN_TQ2_AVX2_EXACT,
    CKERN_TQ2ORDER, CKERN_AVX2_TQ2, CKERN_AVX2_NOPDEP_TQ2,
    CKERN_TQ2_AVX2_GGML,
};

// tq2_0.c built as ggml builds its TQ2_0 kernel (tq2_0_ggml.c).
void tq2_vec_dot_q8_K_avx2_ggml(int n, float * s, const tq2_block * x, const void * y);
int  tq2_have_avx2_ggml(void);

// The builds of bitcos_avx2_clmul.c (VPCLMULQDQ, PCLMULQDQ only, portable).
enum { CKERN_CLMUL_YMM, CKERN_CLMUL_XMM, CKERN_CLMUL_GENERIC };
int  ckern_clmul_compiled(int build);
void ckern_clmul_perm(int build, int k, int8_t * qp, const void * y);
void ckern_clmul_gemv(int build, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                      const uint16_t * d16, float d32, const void * y, float * out);

int  ckern_gcc(void);
void ckern_bitcos_gemv(int variant, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs,
                       const uint32_t * off, const uint16_t * d16, float d32, const void * y, float * out);
void ckern_tq2_gemv(int variant, int k, int rows, int repeat, const void * x, const void * y, float * out);

// rows rows of k weights of a converted weight's blocks (TQ2_0's, or f32
// blocks when f32; bitcos_layout.h) times the column y, row after row:
// kind 0 the AVX2 build of bitcos_tq2_0_avx2.c, 1 its AVX-VNNI build, 2 the
// scalar reference in float order `order`.
void ckern_tq2_0_blocks_gemv(int kind, int order, int k, int rows, const void * x, int f32, const void * y, float * out);
void ckern_dequantize_rows(int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                           const uint16_t * d16, float d32, float * out);
void ckern_codes_gemv(int avx2, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                      const uint16_t * d16, float d32, const void * y, float * out);
void ckern_codes_gemv4(int avx2, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                       const uint16_t * d16, float d32, const void * y0, const void * y1, const void * y2, const void * y3, float * out);

// Weights with fp16 scales per 64 (Q2_0 sources), one column of Q8_0 blocks
// y: rows rows of k weights as Q2_0 blocks stored row after row in x
// (q2_vec_dot_q8_0 per row: a Q2_0 file, and such a weight's blocks made at
// load), or as BITCOS rows with their scales d64 (k/64 per row), each row
// decoded into Q2_0 blocks (bitcos_row_to_q2_0) before the same dot product
// (the native layout's product).
void ckern_q2_0_gemv(int k, int rows, const void * x, const void * y, float * out);
void ckern_bitcos_q2_0_gemv(int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                            const uint16_t * d64, const void * y, float * out);
