// Portable scalar twin of bitcos_avx512.c: the same steps, lane by lane, with
// arrays standing in for registers, so the AVX-512 kernel's logic (masks,
// deposit, negation, pairing, reductions, float steps) runs and is tested on
// any machine. Each block below names the instruction it mirrors. Change both
// files together.

#include "bitcos_impl.h"

// pdep, bit by bit
static uint64_t bitcos_twin_pdep(uint64_t src, uint64_t mask) {
    uint64_t out = 0;
    for (uint64_t bit = 1; mask; bit <<= 1) {
        const uint64_t low = mask & (~mask + 1); // lowest set bit of mask
        if (src & bit) {
            out |= low;
        }
        mask ^= low;
    }
    return out;
}

static int bitcos_twin_popcnt(uint64_t x) {
    int c = 0;
    for (; x; x &= x - 1) {
        ++c;
    }
    return c;
}

// bitcos512_next_neg
static uint64_t bitcos_twin_next_neg(const uint8_t * signs, uint64_t * pos, uint64_t m) {
    const uint64_t c = (uint64_t) bitcos_twin_popcnt(m);               // popcnt
    const uint64_t p = *pos;
    const uint64_t sh = p & 7;
    uint64_t sg = bitcos_load_u64(signs + (p >> 3)) >> sh;             // mov + shrx
    if (c > 56 && sh + c > 64) {
        sg |= (uint64_t) signs[(p >> 3) + 8] << (64 - sh);
    }
    *pos = p + c;
    return bitcos_twin_pdep(sg, m);                                    // pdep (low popcount(m) bits of sg)
}

// bitcos512_block256: s32x8 receives the 8 int32 lanes of the __m256i result
static void bitcos_twin_block256(int32_t s32x8[8], const uint8_t * bm, const int8_t * q, const uint8_t * signs, uint64_t * pos) {
    int16_t acc[32] = {0};                                             // __m512i acc as 32 x i16
    for (int w = 0; w < 4; ++w) {
        const uint64_t m   = bitcos_load_u64(bm + 8*w);
        const uint64_t neg = bitcos_twin_next_neg(signs, pos, m);
        int8_t v[64];
        for (int i = 0; i < 64; ++i) {                                 // vmovdqu8 v{k=m}{z}, [q]
            v[i] = ((m >> i) & 1) ? q[64*w + i] : 0;
        }
        for (int i = 0; i < 64; ++i) {                                 // vpsubb v{k=neg}, zero, v
            if ((neg >> i) & 1) {
                v[i] = (int8_t) (uint8_t) (0u - (uint8_t) v[i]);
            }
        }
        for (int j = 0; j < 32; ++j) {                                 // vpmaddubsw(1, v); vpaddw
            int32_t p = 1 * v[2*j] + 1 * v[2*j + 1];
            p = p > 32767 ? 32767 : p < -32768 ? -32768 : p;
            acc[j] = (int16_t) (uint16_t) ((uint16_t) acc[j] + (uint16_t) p);
        }
    }
    int32_t s32[16];
    for (int i = 0; i < 16; ++i) {                                     // vpmaddwd(acc, 1)
        s32[i] = (int32_t) acc[2*i] + (int32_t) acc[2*i + 1];
    }
    for (int i = 0; i < 8; ++i) {                                      // low 256 + high 256
        s32x8[i] = s32[i] + s32[i + 8];
    }
}

// _mm256_hadd_epi32(a, b), per 128-bit lane
static void bitcos_twin_hadd8(int32_t r[8], const int32_t a[8], const int32_t b[8]) {
    int32_t t[8];
    for (int l = 0; l < 2; ++l) {
        t[4*l + 0] = a[4*l + 0] + a[4*l + 1];
        t[4*l + 1] = a[4*l + 2] + a[4*l + 3];
        t[4*l + 2] = b[4*l + 0] + b[4*l + 1];
        t[4*l + 3] = b[4*l + 2] + b[4*l + 3];
    }
    memcpy(r, t, sizeof(t));
}

void bitcos_vec_dot_q8_K_avx512_twin(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                     const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0;
    float sumf = 0.0f;

    int b = 0;
    for (; b + 4 <= nb; b += 4) {
        int32_t s[4][8], h01[8], h23[8], h[8], si[4];
        for (int i = 0; i < 4; ++i) {
            bitcos_twin_block256(s[i], bitmap + (b + i)*32, y[b + i].qs, signs, &pos);
        }
        bitcos_twin_hadd8(h01, s[0], s[1]);
        bitcos_twin_hadd8(h23, s[2], s[3]);
        bitcos_twin_hadd8(h, h01, h23);
        for (int i = 0; i < 4; ++i) {                                  // low 128 + high 128
            si[i] = h[i] + h[i + 4];
        }
        for (int i = 0; i < 4; ++i) {                                  // lane i of the float vectors
            const float dx = d16 ? bitcos_fp16_to_fp32(d16[b + i]) : d32; // vcvtph2ps / set1
            const float d  = y[b + i].d * dx;                          // vmulps
            float p = (float) si[i] * d;                               // vcvtdq2ps, vmulps
            BITCOS_FP_BARRIER(p);
            sumf += p;                                                 // in block order
        }
    }
    for (; b < nb; ++b) {
        int32_t s0[8];
        bitcos_twin_block256(s0, bitmap + b*32, y[b].qs, signs, &pos);
        int32_t t[4], sumi;
        for (int i = 0; i < 4; ++i) {                                  // low 128 + high 128
            t[i] = s0[i] + s0[i + 4];
        }
        sumi = (t[0] + t[1]) + (t[2] + t[3]);                          // two vphaddd
        sumf = bitcos_block_acc(sumf, sumi, y[b].d, d16, d32, b);
    }

    *s = sumf;
}
