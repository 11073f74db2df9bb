// Helpers shared by the BITCOS kernels (static inline, no state).
// In the llama.cpp patch these map to GGML_CPU_FP16_TO_FP32 and friends.

#pragma once

#include <stdint.h>
#include <string.h>

#include "bitcos.h"

#if defined(__F16C__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__BMI2__)
#include <immintrin.h>
#endif

// BITCOS_FP_BARRIER(x): the compiler must treat the float x as unknown, so a
// multiply before it and an add after it cannot be fused into an FMA.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE_MATH__)
#define BITCOS_FP_BARRIER(x) __asm__ ("" : "+x"(x))
#elif defined(__GNUC__) && defined(__aarch64__)
#define BITCOS_FP_BARRIER(x) __asm__ ("" : "+w"(x))
#elif defined(__GNUC__)
#define BITCOS_FP_BARRIER(x) __asm__ ("" : "+m"(x))
#else
#define BITCOS_FP_BARRIER(x) ((void)0) // rely on -ffp-contract=off (or /fp:precise)
#endif

#if defined(__GNUC__)
#define BITCOS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define BITCOS_INLINE static inline __attribute__((always_inline))
#else
#define BITCOS_UNLIKELY(x) (x)
#define BITCOS_INLINE static inline
#endif

// Exact IEEE half -> float (every fp16 value is a float).
static inline float bitcos_fp16_to_fp32(uint16_t h) {
#if defined(__F16C__)
    return _cvtsh_ss(h);
#else
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t e = (h >> 10) & 0x1f;
    uint32_t m = h & 0x3ff;
    uint32_t bits;
    if (e == 0x1f) {
        bits = sign | 0x7f800000u | (m << 13); // inf, nan
    } else if (e != 0) {
        bits = sign | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        bits = sign; // +-0
    } else {
        e = 113; // subnormal: m * 2^-24, normalise
        while (!(m & 0x400)) {
            m <<= 1;
            e--;
        }
        bits = sign | (e << 23) | ((m & 0x3ff) << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
#endif
}

// The scale of a block of a converted weight (bitcos_layout.h): TQ2_0's fp16
// d, or the f32 d of an f32 block, both at byte 64 of the block.
static inline float bitcos_tq2_0_block_d(const uint8_t * xb, int f32) {
    if (f32) {
        float d;
        memcpy(&d, xb + 64, sizeof(d));
        return d;
    }
    uint16_t h;
    memcpy(&h, xb + 64, sizeof(h));
    return bitcos_fp16_to_fp32(h);
}

// The float step of one 256-block, in the order of
// ggml_vec_dot_tq2_0_q8_K_generic: d = y.d * x.d; sumf += (float)sumi * d.
static inline float bitcos_block_acc(float sumf, int32_t sumi, float yd, const uint16_t * d16, float d32, int b) {
    const float d = yd * (d16 ? bitcos_fp16_to_fp32(d16[b]) : d32);
    float p = (float) sumi * d;
    BITCOS_FP_BARRIER(p);
    return sumf + p;
}

// Software prefetch of the two streams a row reads, BITCOS_PREFETCH_AHEAD
// bytes ahead of the block being read, once per 256-block (the fast kernels).
// Measured inside ggml on an 8192 x 32768 GEMV (docs/BENCHMARKS.md): the
// hardware prefetchers alone leave the kernel short of the DRAM stream rate;
// 1-8 KiB ahead all gain, 4 KiB the most. Prefetches past the tensor's end
// are harmless (they never fault).
#define BITCOS_PREFETCH_AHEAD 4096
#if defined(__GNUC__)
#define BITCOS_PREFETCH(p) __builtin_prefetch((const char *) (p) + BITCOS_PREFETCH_AHEAD, 0, 3)
#else
#define BITCOS_PREFETCH(p) ((void)0)
#endif

static inline uint64_t bitcos_load_u64(const uint8_t * p) {
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v; // little-endian: byte 0 -> bits 0..7
}

// BITCOS_OPAQUE_U64(x): the compiler must treat the integer x as unknown.
// The pdep kernels keep the constant 3 in a register this way, so that
// pos >> three compiles to BMI2's shrx (one uop, non-destructive) where a
// constant shift costs a register copy and a shr on every 64 weights.
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define BITCOS_OPAQUE_U64(x) __asm__ ("" : "+r"(x))
#else
#define BITCOS_OPAQUE_U64(x) ((void)0)
#endif

#if defined(__BMI2__) && defined(__POPCNT__) || defined(__BMI2__) && defined(__AVX2__)
// The next popcount(m) signs from bit *pos of the stream, deposited on the
// set bits of m (the pdep kernels share it). One unaligned load covers 57..64
// bits; c > 56 may need a ninth byte, inside the row since its bits are.
// three == 3 (BITCOS_OPAQUE_U64): the byte offset is pos >> three (shrx), the
// bit offset pos & 7 (bzhi).
BITCOS_INLINE uint64_t bitcos_pdep_next_neg(const uint8_t * signs, uint64_t * pos, uint64_t m, uint64_t three) {
    const uint64_t c = (uint64_t) _mm_popcnt_u64(m);
    const uint64_t p = *pos;
    const uint64_t sh = _bzhi_u64(p, 3);
    uint64_t sg = bitcos_load_u64(signs + (p >> three)) >> sh;
    if (BITCOS_UNLIKELY(c > 56) && sh + c > 64) {
        sg |= (uint64_t) signs[(p >> 3) + 8] << (64 - sh);
    }
    *pos = p + c;
    return _pdep_u64(sg, m); // pdep takes only the low popcount(m) bits of sg
}
#endif
