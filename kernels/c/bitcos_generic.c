// Generic scalar BITCOS x Q8_K dot product (any CPU). See bitcos.h for the
// contract and the order of the float steps.

#include "bitcos_impl.h"

void bitcos_vec_dot_q8_K_generic(int n, float * s, const uint8_t * bitmap, const uint8_t * signs,
                                 const uint16_t * d16, float d32, const void * vy) {
    const bitcos_block_q8_K * y = (const bitcos_block_q8_K *) vy;
    const int nb = n / BITCOS_QK_K;

    uint64_t pos = 0; // bit position of the next sign, LSB first
    float sumf = 0.0f;

    for (int b = 0; b < nb; ++b) {
        const uint8_t * bm = bitmap + b*(BITCOS_QK_K/8);
        const int8_t  * q  = y[b].qs;
        int32_t sumi = 0;
        for (int i = 0; i < BITCOS_QK_K/8; ++i) {
            const unsigned m = bm[i];
            if (m == 0) {
                continue;
            }
            for (int k = 0; k < 8; ++k) {
                if ((m >> k) & 1) {
                    const int neg = (signs[pos >> 3] >> (pos & 7)) & 1;
                    const int32_t v = q[8*i + k];
                    sumi += neg ? -v : v;
                    ++pos;
                }
            }
        }
        sumf = bitcos_block_acc(sumf, sumi, y[b].d, d16, d32, b);
    }

    *s = sumf;
}
