// Bit-exactness test: bitcos_vec_dot_lut16 vs bitcos_vec_dot_q8_K_tq2order
// (memcmp of the floats), random matrices, several zero densities and K,
// rows with all-zero blocks, all-zero rows, dense blocks (sign window edge),
// extreme activations (+-127 everywhere: table extremes +-508).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
#include "bitcos.h"
#include "lut.h"

static uint64_t rng_state = 0x1234567ull;
static uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rndf(void) { return (rnd() >> 11) * (1.0 / 9007199254740992.0); }

typedef struct { int K, rows; uint8_t * bitmap; uint8_t * signs; uint32_t * off; uint16_t * d16; } mat;

// mode per block: 0 random at density z, 1 all zero, 2 dense (no zeros), 3 all +1, 4 all -1
static void make(mat * M, int K, int rows, double z) {
    M->K = K; M->rows = rows;
    size_t nbits = (size_t) K * rows;
    M->bitmap = calloc(nbits / 8, 1);
    M->signs = calloc(nbits / 8 + 16, 1);
    M->off = calloc(rows + 1, 4);
    M->d16 = calloc(nbits / 256, 2);
    size_t pos = 0;
    for (int r = 0; r < rows; ++r) {
        M->off[r] = (uint32_t) (pos / 8);
        const int zero_row = (r % 37) == 5;
        for (int b = 0; b < K / 256; ++b) {
            size_t blk = (size_t) r * (K / 256) + b;
            float d = (float) (0.5 + rndf()) * 0.01f;
            if (rnd() % 97 == 0) d = 0.0f;
            M->d16[blk] = _cvtss_sh(d, 0);
            int mode = 0;
            const uint64_t u = rnd() % 100;
            if (zero_row || u < 8) mode = 1; else if (u < 12) mode = 2; else if (u < 14) mode = 3; else if (u < 16) mode = 4;
            for (int e = 0; e < 256; ++e) {
                size_t j = (size_t) r * K + b * 256 + e;
                int t = 0;
                switch (mode) {
                case 0: if (rndf() >= z) t = (rnd() & 1) ? -1 : 1; break;
                case 1: t = 0; break;
                case 2: t = (rnd() & 1) ? -1 : 1; break;
                case 3: t = 1; break;
                case 4: t = -1; break;
                }
                if (t) {
                    M->bitmap[j / 8] |= (uint8_t) (1u << (j % 8));
                    if (t < 0) M->signs[pos / 8] |= (uint8_t) (1u << (pos % 8));
                    pos++;
                }
            }
        }
        pos = (pos + 7) / 8 * 8;
    }
    M->off[rows] = (uint32_t) (pos / 8);
}

// amode 0 random -127..127, 1 all +127, 2 all -127, 3 alternating +-127 per group of 4, 4 random incl. extremes
static void make_q8(bitcos_block_q8_K * y, int K, int amode) {
    for (int b = 0; b < K / 256; ++b) {
        y[b].d = (float) (0.5 + rndf()) * 0.02f;
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) {
                int v;
                const int e = 16 * g + i;
                switch (amode) {
                case 1: v = 127; break;
                case 2: v = -127; break;
                case 3: v = ((e / 4) & 1) ? 127 : -127; break;
                case 4: v = (rnd() & 1) ? ((rnd() & 1) ? 127 : -127) : (int) (rnd() % 255) - 127; break;
                default: v = (int) (rnd() % 255) - 127;
                }
                y[b].qs[e] = (int8_t) v;
                sum += v;
            }
            y[b].bsums[g] = (int16_t) sum;
        }
    }
}

int main(void) {
    const double zs[] = { 0.30, 0.42, 0.52, 0.0, 0.95 };
    const int Ks[] = { 2560, 6912, 256 };
    long total = 0, bad = 0;
    for (int ki = 0; ki < 3; ++ki) {
        for (int zi = 0; zi < 5; ++zi) {
            for (int amode = 0; amode < 5; ++amode) {
                const int K = Ks[ki], rows = 16 * 12;
                mat M;
                make(&M, K, rows, zs[zi]);
                bitcos_block_q8_K * y = aligned_alloc(64, (K / 256) * sizeof(bitcos_block_q8_K) + 64);
                make_q8(y, K, amode);
                bitcos_lut_block * lut = aligned_alloc(64, (K / 256) * sizeof(bitcos_lut_block) + 64);
                bitcos_lut_prep(K, y, lut);
                for (int r0 = 0; r0 < rows; r0 += 16) {
                    const uint8_t * bm[16]; const uint8_t * sg[16]; const uint16_t * dd[16];
                    for (int r = 0; r < 16; ++r) {
                        bm[r] = M.bitmap + (size_t) (r0 + r) * (K / 8);
                        sg[r] = M.signs + M.off[r0 + r];
                        dd[r] = M.d16 + (size_t) (r0 + r) * (K / 256);
                    }
                    float got[16];
                    bitcos_vec_dot_lut16(K, got, bm, sg, dd, lut, y);
                    if ((r0 & 31) == 0) { // lut32 on rows r0..r0+31
                        const uint8_t * bm2[32]; const uint8_t * sg2[32]; const uint16_t * dd2[32]; float g2[32];
                        for (int r = 0; r < 32; ++r) {
                            bm2[r] = M.bitmap + (size_t) (r0 + r) * (K / 8);
                            sg2[r] = M.signs + M.off[r0 + r];
                            dd2[r] = M.d16 + (size_t) (r0 + r) * (K / 256);
                        }
                        bitcos_vec_dot_lut32(K, g2, bm2, sg2, dd2, lut, y);
                        for (int r = 0; r < 32; ++r) {
                            float want;
                            bitcos_vec_dot_q8_K_tq2order(K, &want, bm2[r], sg2[r], dd2[r], 0.0f, y);
                            ++total;
                            if (memcmp(&want, &g2[r], 4) != 0) { if (bad < 10) printf("lut32 MISMATCH row %d\n", r0 + r); ++bad; }
                        }
                    }
                    for (int r = 0; r < 16; ++r) {
                        float want;
                        bitcos_vec_dot_q8_K_tq2order(K, &want, bm[r], sg[r], dd[r], 0.0f, y);
                        ++total;
                        if (memcmp(&want, &got[r], 4) != 0) {
                            if (bad < 10) printf("MISMATCH K=%d z=%.2f amode=%d row %d: got %.9g want %.9g\n", K, zs[zi], amode, r0 + r, got[r], want);
                            ++bad;
                        }
                    }
                }
                free(M.bitmap); free(M.signs); free(M.off); free(M.d16); free(y); free(lut);
            }
        }
    }
    printf("%ld rows checked, %ld mismatches\n", total, bad);
    return bad != 0;
}
