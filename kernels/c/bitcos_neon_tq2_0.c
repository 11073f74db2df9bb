// A weight converted at load to f32 blocks (bitcos_layout.h: TQ2_0's 64 code
// bytes per 256 weights, then the per-tensor f32 scale) times one Q8_K column
// on aarch64, in the float order of ggml's NEON TQ2_0 kernel
// (bitcos_neon_tq2.c writes it down): the exact sumi of each block, then one
// fused multiply-add, so the logits are bit-identical to the native kernels
// of that order with that scale. TQ2_0 blocks (fp16 scales) need no kernel of
// ours: ggml's own NEON TQ2_0 kernel computes this order. Used by the
// load-time layout of f32-scaled weights (I2_S sources); its own file so that
// the core CPU kernels do not carry the load-time layout.

#include "bitcos_impl.h"
#include "bitcos_layout.h"
#include "bitcos_neon_tq2.h"
#include "bitcos_select.h"

#include <math.h>

#if BITCOS_NEON_TQ2_SIMD

// sum of c * q over one block of packed TQ2_0 codes (qs[64], a converted
// weight's block: bitcos_layout.h), minus sum of q: exact sumi. Code k of qs
// byte 32h + i is element 128h + 32k + i.
BITCOS_INLINE int32_t bitcos_neon_tq2_0_block(const uint8_t * qs, const bitcos_block_q8_K * y) {
    const int16x8_t bs = vaddq_s16(vld1q_s16(y->bsums), vld1q_s16(y->bsums + 8)); // each |.| <= 4096
    const uint8x16_t m3 = vdupq_n_u8(3);
#if BITCOS_NEON_TQ2_SIMD == 2
    int32x4_t acc0 = vdupq_n_s32(0);
    int32x4_t acc1 = vdupq_n_s32(0);
#else
    int16x8_t acc0 = vdupq_n_s16(0); // at most 32 products of |c*q| <= 381 per lane
    int16x8_t acc1 = vdupq_n_s16(0);
#endif
    for (int h = 0; h < 2; ++h) {
        const uint8x16_t x0 = vld1q_u8(qs + 32*h);
        const uint8x16_t x1 = vld1q_u8(qs + 32*h + 16);
        for (int k = 0; k < 4; ++k) {
            const int8x16_t sh = vdupq_n_s8((int8_t) (-2*k));
            const int8x16_t c0 = vreinterpretq_s8_u8(vandq_u8(vshlq_u8(x0, sh), m3));
            const int8x16_t c1 = vreinterpretq_s8_u8(vandq_u8(vshlq_u8(x1, sh), m3));
            const int8x16_t q0 = vld1q_s8(y->qs + 128*h + 32*k);
            const int8x16_t q1 = vld1q_s8(y->qs + 128*h + 32*k + 16);
#if BITCOS_NEON_TQ2_SIMD == 2
            acc0 = vdotq_s32(acc0, c0, q0);
            acc1 = vdotq_s32(acc1, c1, q1);
#else
            acc0 = vmlal_s8(acc0, vget_low_s8(c0), vget_low_s8(q0));
            acc1 = vmlal_high_s8(acc1, c0, q0);
            acc0 = vmlal_s8(acc0, vget_low_s8(c1), vget_low_s8(q1));
            acc1 = vmlal_high_s8(acc1, c1, q1);
#endif
        }
    }
#if BITCOS_NEON_TQ2_SIMD == 2
    return vaddvq_s32(vaddq_s32(acc0, acc1)) - vaddlvq_s16(bs);
#else
    return vaddlvq_s16(acc0) + vaddlvq_s16(acc1) - vaddlvq_s16(bs);
#endif
}

void bitcos_tq2_0_f32_vec_dot_q8_K_neon(int n, float * s, const void * vx, const void * vy) {
    const uint8_t * x = (const uint8_t *) vx;
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    float sumf = 0.0f;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const uint8_t * xb = x + (size_t) b * BITCOS_TQ2_0_F32_BLOCK_BYTES;
        const int32_t sumi = bitcos_neon_tq2_0_block(xb, &y[b]);
        sumf = fmaf((float) sumi, y[b].d * bitcos_tq2_0_block_d(xb, 1), sumf);
    }
    *s = sumf;
}

#else // no NEON: the scalar reference of the ARM order

void bitcos_tq2_0_f32_vec_dot_q8_K_neon(int n, float * s, const void * x, const void * y) {
    bitcos_tq2_0_vec_dot_q8_K_ref(n, s, x, 1, BITCOS_ORDER_TQ2_ARM, y);
}

#endif
