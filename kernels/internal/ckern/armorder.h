#pragma once
#include <stdint.h>

// The paths of bitcos_neon_tq2.c: tq2order_arm, neon_tq2 (its portable
// build here), the batch path (bitcos_row_codes, then
// bitcos_codes_vec_dot_q8_K_arm), and its four-column form on four copies of
// one column (1e30 if they disagree).
enum { CKERN_ARM_SCALAR, CKERN_ARM_NEON, CKERN_ARM_CODES, CKERN_ARM_CODES4 };
void ckern_arm_gemv(int path, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                    const uint16_t * d16, float d32, const void * y, float * out);
