// BITCOS x Q8_K in the float order of ggml's NEON TQ2_0 kernel (aarch64).
//
// ggml_vec_dot_tq2_0_q8_K under __ARM_NEON (ggml-cpu/arch/arm/quants.c at
// the pin) forms, per 256-block b, an exact integer: with sdot
// (__ARM_FEATURE_DOTPROD) four int32 lanes, without it eight int16 lanes of
// smlal (each at most 32 * 256 + 2 * 2048 in magnitude: no wrap), minus the
// bsums, summed across lanes (addv, saddlv). Either way the integer is
//     sumi_b = sum over the block of (t_e + 1) * q_e - sum of q_e = sum of t_e * q_e,
// exact. Its float steps are
//     d    = fp16_to_fp32(x[b].d) * y[b].d                       (fmul)
//     sumf = sumf + d * (float) sumi_b                            (one statement)
// and GCC (-std=gnu11, the default -ffp-contract=fast) and clang
// (-ffp-contract=on) both contract the second line into one fused
// multiply-add: the aarch64 objects of that function at the pin hold
// `fmadd s7, s0, s4, s7` for both the dotprod and the plain NEON build
// (aarch64-linux-gnu-gcc 12, -O3). So the ARM order is
//     sumf = fmaf((float) sumi_b, y[b].d * d_b, sumf)   for b in order,
// one rounding per block (the multiply y.d * d_b is commutative, so its
// operand order does not matter). It differs from the exact order of
// bitcos.h (a rounded multiply, then a rounded add) in the last bits; with
// one block they agree. Blocks with a zero scale add (+/-)0 as in TQ2_0.
//
// The NEON kernel, per 32 weights (bitmap bytes b0..b3, two 16-weight
// halves): one unaligned 64-bit load at the sign cursor gives >= 57 sign bits
// (the halves' popcounts come from cnt + addp once per block); the
// word w = signs[0..15] | signs[c0..c0+15] << 16 holds each half's first 16
// signs. Vector: w spread to bytes, cmtst with the lane bit, orr 1 gives
// T[i] = +1 or -1 (sign i of the half); R = rank_a[b0] + rank_b[b1], each
// present weight's rank among its half's present ones, >= 0x80 when absent
// (bitcos_nopdep_tables.h); tbl(T, R) is then t itself: +1, -1, or 0 where
// the index is out of range. sdot(acc, t, q) (or smlal/smlal2 into int16
// lanes, at most 32 products of |t*q| <= 128 per lane and block: no wrap)
// gives sumi_b exactly.
//
// Reads: the bitmap, the block's activations, and at most 8 bytes from the
// sign cursor's byte, within the 8 bytes past the row's last sign byte that
// bitcos.h allows.

#include "bitcos_impl.h"
#include "bitcos_neon_tq2.h"

#include <math.h>

int bitcos_have_neon_tq2(void) { return BITCOS_NEON_TQ2_SIMD; }

// The block's scale, as the other kernels read it; on aarch64 with the
// hardware conversion (fcvt, exact like the portable one).
static inline float bitcos_arm_scale(const uint16_t * d16, float d32, int b) {
#if BITCOS_NEON_TQ2_SIMD
    if (d16) {
        __fp16 h;
        memcpy(&h, d16 + b, sizeof(h));
        return (float) h;
    }
    return d32;
#else
    return d16 ? bitcos_fp16_to_fp32(d16[b]) : d32;
#endif
}

void bitcos_vec_dot_q8_K_tq2order_arm(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                      const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign, LSB first
    float sumf = 0.0f;

    for (int b = 0; b < nb; ++b) {
        const uint8_t * bm = bitmap + b*(BITCOS_QK_K/8);
        const int8_t  * q  = y[b].qs;
        int32_t sumi = 0;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            if ((bm[e >> 3] >> (e & 7)) & 1) {
                const int neg = (signs[pos >> 3] >> (pos & 7)) & 1;
                sumi += neg ? -(int32_t) q[e] : (int32_t) q[e];
                ++pos;
            }
        }
        const float d = y[b].d * bitcos_arm_scale(d16, d32, b);
        sumf = fmaf((float) sumi, d, sumf);
    }

    *s = sumf;
}

#if BITCOS_NEON_TQ2_SIMD

#include "bitcos_nopdep_tables.h"

// Unrolled, the 8 steps of a block index the tables and the activations at
// constant offsets (no loop counter or pointer bumps).
#if defined(__GNUC__) && !defined(__clang__)
#define BITCOS_NEON_UNROLL8 _Pragma("GCC unroll 8")
#elif defined(__clang__)
#define BITCOS_NEON_UNROLL8 _Pragma("clang loop unroll(full)")
#else
#define BITCOS_NEON_UNROLL8
#endif

// 16 weights (bitmap bytes b0, b1) of 16-bit sign window `win` (a byte pair
// of vw): t = +1, -1 or 0 per weight.
BITCOS_INLINE int8x16_t bitcos_neon_t16(uint8x16_t vw, uint8x16_t spread, unsigned b0, unsigned b1) {
    const uint8x16_t lane_bit = vreinterpretq_u8_u64(vdupq_n_u64(0x8040201008040201ull));
    const uint8x16_t ones     = vdupq_n_u8(1);
    const uint8x16_t sv = vorrq_u8(vtstq_u8(vqtbl1q_u8(vw, spread), lane_bit), ones); // 0xff: -1, 0x01: +1
    const uint8x16_t r  = vaddq_u8(vld1q_u8(bitcos_rank_a[b0]), vld1q_u8(bitcos_rank_b[b1]));
    return vreinterpretq_s8_u8(vqtbl1q_u8(sv, r));
}

// 32 weights: bitmap bytes bm[0..3], c0 and c1 the popcounts of bm[0..1]
// and bm[2..3]; t of each half in *t0, *t1.
BITCOS_INLINE void bitcos_neon_t32(const uint8_t * bm, unsigned c0, unsigned c1, const uint8_t * signs, uint64_t * pos,
                                   int8x16_t * t0, int8x16_t * t1) {
    static const uint8_t spread[32] = { 0,0,0,0,0,0,0,0, 1,1,1,1,1,1,1,1, 2,2,2,2,2,2,2,2, 3,3,3,3,3,3,3,3 };
    const uint64_t p  = *pos;
    const uint64_t sg = bitcos_load_u64(signs + (p >> 3)) >> (p & 7); // >= 57 valid bits, c0 + c1 <= 32
    *pos = p + c0 + c1;
    const uint32_t w = (uint32_t) (sg & 0xffff) | (uint32_t) (sg >> c0) << 16;
    const uint8x16_t vw = vreinterpretq_u8_u32(vdupq_n_u32(w));
    uint32_t m;
    memcpy(&m, bm, sizeof(m));
    *t0 = bitcos_neon_t16(vw, vld1q_u8(spread),      m & 0xff, (m >> 8) & 0xff);
    *t1 = bitcos_neon_t16(vw, vld1q_u8(spread + 16), (m >> 16) & 0xff, m >> 24);
}

// The popcount of each bitmap byte pair (16 weights) of a block: cnt[h] for
// bytes 2h, 2h+1 (cnt then addp).
BITCOS_INLINE void bitcos_neon_counts(const uint8_t * bm, uint8_t cnt[16]) {
    vst1q_u8(cnt, vpaddq_u8(vcntq_u8(vld1q_u8(bm)), vcntq_u8(vld1q_u8(bm + 16))));
}

// sumi of one 256-block, exact.
BITCOS_INLINE int32_t bitcos_neon_block(const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos) {
#if BITCOS_NEON_TQ2_SIMD == 2
    uint8_t cnt[16];
    bitcos_neon_counts(bm, cnt);
    int32x4_t acc0 = vdupq_n_s32(0);
    int32x4_t acc1 = vdupq_n_s32(0);
    BITCOS_NEON_UNROLL8
    for (int i = 0; i < 8; ++i) {
        int8x16_t t0, t1;
        bitcos_neon_t32(bm + 4*i, cnt[2*i], cnt[2*i + 1], signs, pos, &t0, &t1);
        acc0 = vdotq_s32(acc0, t0, vld1q_s8(q + 32*i));
        acc1 = vdotq_s32(acc1, t1, vld1q_s8(q + 32*i + 16));
    }
    return vaddvq_s32(vaddq_s32(acc0, acc1));
#else
    uint8_t cnt[16];
    bitcos_neon_counts(bm, cnt);
    int16x8_t acc0 = vdupq_n_s16(0);
    int16x8_t acc1 = vdupq_n_s16(0);
    BITCOS_NEON_UNROLL8
    for (int i = 0; i < 8; ++i) {
        int8x16_t t0, t1;
        bitcos_neon_t32(bm + 4*i, cnt[2*i], cnt[2*i + 1], signs, pos, &t0, &t1);
        const int8x16_t q0 = vld1q_s8(q + 32*i);
        const int8x16_t q1 = vld1q_s8(q + 32*i + 16);
        acc0 = vmlal_s8(acc0, vget_low_s8(t0), vget_low_s8(q0));
        acc1 = vmlal_high_s8(acc1, t0, q0);
        acc0 = vmlal_s8(acc0, vget_low_s8(t1), vget_low_s8(q1));
        acc1 = vmlal_high_s8(acc1, t1, q1);
    }
    return vaddlvq_s16(acc0) + vaddlvq_s16(acc1);
#endif
}

void bitcos_vec_dot_q8_K_neon_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                  const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign
    float sumf = 0.0f;

    for (int b = 0; b < nb; ++b) {
        const int32_t sumi = bitcos_neon_block(bitmap + b*(BITCOS_QK_K/8), y[b].qs, signs, &pos);
        const float d = y[b].d * bitcos_arm_scale(d16, d32, b);
        sumf = fmaf((float) sumi, d, sumf);
    }

    *s = sumf;
}

// sum of c * q over one block of codes, minus sum of q: exact sumi.
BITCOS_INLINE int32_t bitcos_neon_codes_block(const uint8_t * c, const bitcos_block_q8_K * y) {
    const int16x8_t bs = vaddq_s16(vld1q_s16(y->bsums), vld1q_s16(y->bsums + 8)); // each |.| <= 4096
#if BITCOS_NEON_TQ2_SIMD == 2
    int32x4_t acc0 = vdupq_n_s32(0);
    int32x4_t acc1 = vdupq_n_s32(0);
    for (int i = 0; i < BITCOS_QK_K; i += 32) {
        acc0 = vdotq_s32(acc0, vreinterpretq_s8_u8(vld1q_u8(c + i)),      vld1q_s8(y->qs + i));
        acc1 = vdotq_s32(acc1, vreinterpretq_s8_u8(vld1q_u8(c + i + 16)), vld1q_s8(y->qs + i + 16));
    }
    return vaddvq_s32(vaddq_s32(acc0, acc1)) - vaddlvq_s16(bs);
#else
    int16x8_t acc0 = vdupq_n_s16(0); // at most 32 products of |c*q| <= 256 per lane
    int16x8_t acc1 = vdupq_n_s16(0);
    for (int i = 0; i < BITCOS_QK_K; i += 16) {
        const int8x16_t cv = vreinterpretq_s8_u8(vld1q_u8(c + i));
        const int8x16_t qv = vld1q_s8(y->qs + i);
        acc0 = vmlal_s8(acc0, vget_low_s8(cv), vget_low_s8(qv));
        acc1 = vmlal_high_s8(acc1, cv, qv);
    }
    return vaddlvq_s16(acc0) + vaddlvq_s16(acc1) - vaddlvq_s16(bs);
#endif
}

void bitcos_codes_vec_dot_q8_K_arm(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    float sumf = 0.0f;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const int32_t sumi = bitcos_neon_codes_block(c + b*BITCOS_QK_K, &y[b]);
        sumf = fmaf((float) sumi, y[b].d * bitcos_arm_scale(d16, d32, b), sumf);
    }
    *s = sumf;
}

#else // no NEON: the scalar order

void bitcos_vec_dot_q8_K_neon_tq2(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                  const uint16_t * d16, float d32, const void * vy) {
    bitcos_vec_dot_q8_K_tq2order_arm(n, s, bitmap, signs, d16, d32, vy);
}

void bitcos_codes_vec_dot_q8_K_arm(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    float sumf = 0.0f;
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        int32_t sumi = 0;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            sumi += ((int32_t) c[b*BITCOS_QK_K + e] - 1) * y[b].qs[e];
        }
        sumf = fmaf((float) sumi, y[b].d * bitcos_arm_scale(d16, d32, b), sumf);
    }
    *s = sumf;
}

#endif

// Four columns: each as bitcos_codes_vec_dot_q8_K_arm (the codes stay in L1
// between the four passes; a fused loop would be faster, not more exact).
void bitcos_codes_vec_dot_q8_K_arm_x4(int n, float * s, const uint8_t * c, const uint16_t * d16, float d32, const void * const * vy) {
    for (int j = 0; j < 4; ++j) {
        bitcos_codes_vec_dot_q8_K_arm(n, &s[j], c, d16, d32, vy[j]);
    }
}
