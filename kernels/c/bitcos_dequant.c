// Reference decode of BITCOS rows to float (ggml's to_float / GET_ROWS for
// a BITCOS weight, e.g. a ternary token embedding). Scalar C, any CPU:
// GET_ROWS reads a handful of rows per token, so speed does not matter here.
//
// Value of weight j of 256-block b:  (float) t_j * d_b, d_b the row's fp16
// scale of block b as float (or d32 when d16 == NULL): one rounded multiply,
// the step of ggml's dequantize_row_tq2_0 ((float)(q - 1) * d), so a BITCOS
// repack of a TQ2_0 tensor decodes to the same float bits, -0.0 included
// (0 * a negative scale).

#include "bitcos_impl.h"

void bitcos_dequantize_row(int n, float * y, const uint8_t * bitmap, const uint8_t * signs,
                           const uint16_t * d16, float d32) {
    uint64_t pos = 0; // bit position of the next sign, LSB first
    for (int b = 0; b < n / BITCOS_QK_K; ++b) {
        const float d = d16 ? bitcos_fp16_to_fp32(d16[b]) : d32;
        for (int e = 0; e < BITCOS_QK_K; ++e) {
            const int j = b*BITCOS_QK_K + e;
            int t = 0;
            if ((bitmap[j >> 3] >> (j & 7)) & 1) {
                t = ((signs[pos >> 3] >> (pos & 7)) & 1) ? -1 : 1;
                ++pos;
            }
            y[j] = (float) t * d;
        }
    }
}
