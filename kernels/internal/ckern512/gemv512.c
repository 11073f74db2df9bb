//go:build cgo

// kernels/c sha256: 06271d6154358c61947f39ec13cec6b1e08905d231dce478087e5b91aa28b233
#include "../../c/bitcos.h"
#include "../../c/bitcos_tq2fast.h"
#include <stddef.h>

static void ckern512_run(bitcos_vec_dot_t fn, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                         const uint16_t * d16, float d32, const void * y, float * out) {
    for (int r = 0; r < rows; ++r) {
        const int i = repeat ? 0 : r;
        fn(k, out + r, bitmap + (size_t) i * (k / 8), signs + off[i], d16 ? d16 + (size_t) i * (k / 256) : 0, d32, y);
        __asm__ volatile("" ::: "memory");
    }
}

// tq2 != 0: bitcos_vec_dot_q8_K_avx512_tq2 (TQ2_0's float order).
void ckern512_gemv(int tq2, int k, int rows, int repeat, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, const void * y, float * out) {
    ckern512_run(tq2 ? bitcos_vec_dot_q8_K_avx512_tq2 : bitcos_vec_dot_q8_K_avx512, k, rows, repeat, bitmap, signs, off, d16, d32, y, out);
}
