// Just enough of CUDA (and ggml-cuda's common.cuh) for g++ to compile
// kernels/cuda/bitcos_cuda.cuh as host code: a test aid, not part of the patch.
// Every float op is an IEEE single-precision op (x86-64 SSE; the harness is
// built with -ffp-contract=off), fp16 conversions are exact / round-to-nearest-
// even as on the GPU.

#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#define __device__
#define __forceinline__ inline

struct half {
    uint16_t x;
};

struct half2 {
    half x, y;
};

// fp16 -> fp32: exact (normals, subnormals, zeros, inf, nan).
inline float __half2float(const half h) {
    const uint32_t sign = (uint32_t) (h.x & 0x8000u) << 16;
    const uint32_t exp  = (h.x >> 10) & 0x1fu;
    uint32_t       man  = h.x & 0x3ffu;
    uint32_t       bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | man << 13;
    } else if (exp != 0) {
        bits = sign | (exp + 112) << 23 | man << 13;
    } else if (man == 0) {
        bits = sign;
    } else {  // subnormal: normalize
        int e = 113;
        while ((man & 0x400u) == 0) {
            man <<= 1;
            --e;
        }
        bits = sign | (uint32_t) e << 23 | (man & 0x3ffu) << 13;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// fp32 -> fp16, round to nearest even (__float2half_rn), overflow to inf.
inline half __float2half_rn(const float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t sign = (uint16_t) ((bits >> 16) & 0x8000u);
    const uint32_t abs  = bits & 0x7fffffffu;
    if (abs > 0x7f800000u) {
        return half{ (uint16_t) (sign | 0x7e00u) };
    }
    if (abs >= 0x477ff000u) {  // >= 65520: rounds to inf
        return half{ (uint16_t) (sign | 0x7c00u) };
    }
    if (abs < 0x38800000u) {  // below 2^-14: subnormal half (or zero)
        // value = abs_float; in units of 2^-24 with round to nearest even
        const uint32_t e = abs >> 23;
        if (e < 102) {  // below 2^-25: rounds to zero
            return half{ sign };
        }
        const uint32_t m     = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - e;  // m * 2^(e-150) / 2^-24 = m >> (126 - e)
        uint32_t       q     = m >> shift;
        const uint32_t rem   = m & ((1u << shift) - 1);
        const uint32_t halfw = 1u << (shift - 1);
        if (rem > halfw || (rem == halfw && (q & 1))) {
            ++q;
        }
        return half{ (uint16_t) (sign | q) };
    }
    uint32_t       h   = ((abs >> 13) - (112u << 10));
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) {
        ++h;
    }
    return half{ (uint16_t) (sign | h) };
}

// __float2half: round to nearest even, as __float2half_rn.
inline half __float2half(const float f) {
    return __float2half_rn(f);
}

inline float __low2float(const half2 h) {
    return __half2float(h.x);
}

inline half2 make_half2(const float a, const float b) {
    return half2{ __float2half_rn(a), __float2half_rn(b) };
}

inline int __popc(const uint32_t x) {
    return __builtin_popcount(x);
}

inline float __fmul_rn(const float a, const float b) {
    return a * b;
}

inline float __fadd_rn(const float a, const float b) {
    return a + b;
}

inline float __int2float_rn(const int x) {
    return (float) x;
}

inline int ggml_cuda_dp4a(const int a, const int b, int c) {
    for (int i = 0; i < 4; ++i) {
        c += (int) (int8_t) (a >> (8 * i)) * (int) (int8_t) (b >> (8 * i));
    }
    return c;
}

// CUDA's int4 (16-byte aligned, as the staged activations' loads need).
struct alignas(16) int4 {
    int x, y, z, w;
};

// ggml-common.h's block_q8_1: ds = {d, sum} as fp16, 32 quants; 36 bytes.
#define QK8_1 32

struct block_q8_1 {
    half2  ds;
    int8_t qs[QK8_1];
};

static_assert(sizeof(block_q8_1) == 36, "block_q8_1 is 36 bytes");

// ggml-common.h's block_q2_0: d, then 64 2-bit codes t + 1 (weight j in bits
// 2*(j%4) of qs[j/4]); 18 bytes.
#define QK2_0 64

struct block_q2_0 {
    half    d;
    uint8_t qs[QK2_0 / 4];
};

static_assert(sizeof(block_q2_0) == 18, "block_q2_0 is 18 bytes");
