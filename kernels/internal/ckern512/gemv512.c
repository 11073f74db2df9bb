//go:build cgo

// kernels/c sha256: 71e1a74352122a0c7e72076fc2df79fe7aa746a6e05ac4150b6508512d194711
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
