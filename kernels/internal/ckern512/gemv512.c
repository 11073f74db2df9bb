//go:build cgo

// kernels/c sha256: 5307c1aa96c6b268f0cd91a1ea12ff1b85bf079e76afa7bf275a5ca55a4b225a
#include "../../c/bitcos.h"
#include <stddef.h>

void ckern512_gemv(int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, const void * y, float * out) {
    for (int r = 0; r < rows; ++r) {
        const int i = repeat ? 0 : r;
        bitcos_vec_dot_q8_K_avx512(k, out + r, bitmap + (size_t) i * (k / 8), signs + off[i],
                                   d16 ? d16 + (size_t) i * (k / 256) : 0, d32, y);
        __asm__ volatile("" ::: "memory");
    }
}
