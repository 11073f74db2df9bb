#include "q2_0.h"
#include "../bitcos_impl.h"

void q2_vec_dot_q8_0(int n, float * s, const q2_block * x, const q8_0_block * y) {
    const int nb = n / 64;
    float sumf = 0.0f;
    for (int i = 0; i < nb; ++i) {
        const float d2 = bitcos_fp16_to_fp32(x[i].d);
        float sumi = 0.0f;
        for (int k = 0; k < 2; ++k) {
            const q8_0_block * yb = &y[2*i + k];
            const uint8_t * qs = x[i].qs + 8*k;
            int sum = 0;
            for (int b = 0; b < 8; ++b) {
                const int byte = qs[b];
                sum += ((byte >> 0 & 3) - 1) * yb->qs[4*b + 0];
                sum += ((byte >> 2 & 3) - 1) * yb->qs[4*b + 1];
                sum += ((byte >> 4 & 3) - 1) * yb->qs[4*b + 2];
                sum += ((byte >> 6 & 3) - 1) * yb->qs[4*b + 3];
            }
            sumi += bitcos_fp16_to_fp32(yb->d) * (float) sum;
        }
        sumf += d2 * sumi;
    }
    *s = sumf;
}
