//go:build cgo

// Whole GEMVs of the ARM-order kernels (bitcos_neon_tq2.c), as gemv.c does
// for the others.
#include "armorder.h"
#include "../../c/bitcos_neon_tq2.h"
#include <stdlib.h>
#include <string.h>

void bitcos_row_codes_generic(int n, uint8_t * c, const uint8_t * bitmap, const uint8_t * signs);

void ckern_arm_gemv(int path, int k, int rows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                    const uint16_t * d16, float d32, const void * y, float * out) {
    uint8_t * c = malloc((size_t) k);
    const void * ys[4] = { y, y, y, y };
    for (int r = 0; r < rows; ++r) {
        const uint8_t  * bm = bitmap + (size_t) r * (k / 8);
        const uint16_t * d  = d16 ? d16 + (size_t) r * (k / 256) : NULL;
        float s4[4];
        switch (path) {
            case CKERN_ARM_SCALAR: bitcos_vec_dot_q8_K_tq2order_arm(k, out + r, bm, signs + off[r], d, d32, y); break;
            case CKERN_ARM_NEON:   bitcos_vec_dot_q8_K_neon_tq2(k, out + r, bm, signs + off[r], d, d32, y); break;
            case CKERN_ARM_CODES:
                memset(c, 0xee, (size_t) k); // every byte must be written
                bitcos_row_codes_generic(k, c, bm, signs + off[r]);
                bitcos_codes_vec_dot_q8_K_arm(k, out + r, c, d, d32, y);
                break;
            default: // CKERN_ARM_CODES4: four equal columns, which must agree
                bitcos_row_codes_generic(k, c, bm, signs + off[r]);
                bitcos_codes_vec_dot_q8_K_arm_x4(k, s4, c, d, d32, ys);
                out[r] = (memcmp(&s4[0], &s4[1], 4) || memcmp(&s4[0], &s4[2], 4) || memcmp(&s4[0], &s4[3], 4)) ? 1e30f : s4[0];
        }
    }
    free(c);
}
