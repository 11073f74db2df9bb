// BITCOS to Q2_0 blocks (bitcos_transcode.h), for devices that run Q2_0 and
// not BITCOS. Decoding reuses bitcos_row_codes (bitcos_codes.c), as the TQ2_0
// conversion does (bitcos_layout.c): one code byte per weight, c = t + 1,
// which is Q2_0's 2-bit code too; only the packing differs.

#include "bitcos_transcode.h"
#include "bitcos_impl.h"
#include "bitcos_layout.h"

#include <string.h>

void bitcos_row_to_q2_0(int n, uint8_t * dst, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16,
                        int group, uint8_t * codes) {
    bitcos_row_codes(n, codes, bitmap, signs);
    for (int b = 0; b < n / BITCOS_Q2_0_BLOCK_WEIGHTS; ++b) {
        const uint8_t * c = codes + b * BITCOS_Q2_0_BLOCK_WEIGHTS;
        uint8_t * q = dst + b * BITCOS_Q2_0_BLOCK_BYTES;
        memcpy(q, &d16[(b * BITCOS_Q2_0_BLOCK_WEIGHTS) / group], 2);
        for (int i = 0; i < BITCOS_Q2_0_BLOCK_WEIGHTS / 4; ++i) {
            q[2 + i] = (uint8_t) (c[4 * i] | c[4 * i + 1] << 2 | c[4 * i + 2] << 4 | c[4 * i + 3] << 6);
        }
    }
}

int64_t bitcos_to_q2_0(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                       const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, int group, uint8_t * codes) {
    const int64_t bad = bitcos_check_rows(nrows, n, bitmap, rows, sign_bytes);
    if (bad >= 0) {
        return bad;
    }
    const int64_t nb = n / BITCOS_Q2_0_BLOCK_WEIGHTS;
    for (int64_t r = 0; r < nrows; ++r) {
        bitcos_row_to_q2_0(n, dst + r * nb * BITCOS_Q2_0_BLOCK_BYTES, bitmap + r * (n / 8), signs + rows[r],
                           d16 + r * (n / group), group, codes);
    }
    return -1;
}
