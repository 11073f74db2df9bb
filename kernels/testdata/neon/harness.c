// Test harness for kernels/c/bitcos_neon_tq2.c on aarch64 (built and run
// under qemu-aarch64 by kernels/neon_qemu_test.go; not part of the patch).
//
// stdin, little-endian: int32 k, rows, ncols (4), per_tensor; float d32;
// uint32 nsigns; then bitmap (rows*k/8), signs (nsigns bytes, the 8-byte
// tail included), off (rows+1 uint32), d16 (rows*k/256 uint16, absent when
// per_tensor), y (ncols columns of k/256 block_q8_K each).
// stdout: the line "simd N" (BITCOS_NEON_TQ2_SIMD of this build), then per
// row, as float32: neon_tq2 with each column, the batch path (codes, one
// column) with each, the four-column batch path, and the row converted at
// load (bitcos_row_to_tq2_0, bitcos_layout.c) with each column: per_tensor,
// f32 blocks through bitcos_tq2_0_f32_vec_dot_q8_K_neon; else TQ2_0 blocks
// through the scalar reference in the ARM order (ggml's own NEON kernel runs
// those in llama.cpp).
// The sign stream is copied to the end of a page followed by an inaccessible
// one, so a read past the 8-byte tail faults.

#include "../../c/bitcos_neon_tq2.c"
#include "../../c/bitcos_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void * read_all(size_t n) {
    void * p = malloc(n ? n : 1);
    if (n && fread(p, 1, n, stdin) != n) {
        fprintf(stderr, "harness: short input\n");
        exit(2);
    }
    return p;
}

int main(void) {
    int32_t hdr[4];
    float d32;
    uint32_t nsigns;
    if (fread(hdr, 4, 4, stdin) != 4 || fread(&d32, 4, 1, stdin) != 1 || fread(&nsigns, 4, 1, stdin) != 1) {
        fprintf(stderr, "harness: no header\n");
        return 2;
    }
    const int k = hdr[0], rows = hdr[1], ncols = hdr[2], per_tensor = hdr[3];
    if (k <= 0 || k % 256 || rows <= 0 || ncols != 4) {
        fprintf(stderr, "harness: bad header\n");
        return 2;
    }
    uint8_t * bitmap = read_all((size_t) rows * k / 8);
    uint8_t * signs0 = read_all(nsigns);
    uint32_t * off = read_all((size_t) (rows + 1) * 4);
    uint16_t * d16 = per_tensor ? NULL : read_all((size_t) rows * (k / 256) * 2);
    bitcos_block_q8_K * y = read_all((size_t) ncols * (k / 256) * sizeof(bitcos_block_q8_K));

    // signs at the end of the accessible pages, a PROT_NONE page after them
    const size_t page = (size_t) sysconf(_SC_PAGESIZE);
    const size_t span = (nsigns + page - 1) / page * page;
    uint8_t * map = mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || mprotect(map + span, page, PROT_NONE) != 0) {
        perror("harness: mmap");
        return 2;
    }
    uint8_t * signs = map + span - nsigns;
    memcpy(signs, signs0, nsigns);

    printf("simd %d\n", BITCOS_NEON_TQ2_SIMD);
    fflush(stdout);
    uint8_t * codes = malloc((size_t) k);
    uint8_t * blocks = malloc((size_t) (k / 256) * BITCOS_TQ2_0_F32_BLOCK_BYTES);
    float * out = malloc((size_t) rows * 16 * sizeof(float));
    for (int r = 0; r < rows; ++r) {
        const uint8_t * bm = bitmap + (size_t) r * (k / 8);
        const uint16_t * d = d16 ? d16 + (size_t) r * (k / 256) : NULL;
        float * o = out + (size_t) r * 16;
        const void * cols[4];
        for (int j = 0; j < 4; ++j) {
            cols[j] = y + (size_t) j * (k / 256);
            bitcos_vec_dot_q8_K_neon_tq2(k, &o[j], bm, signs + off[r], d, d32, cols[j]);
        }
        memset(codes, 0xee, (size_t) k); // every byte must be written
        bitcos_row_codes(k, codes, bm, signs + off[r]);
        for (int j = 0; j < 4; ++j) {
            bitcos_codes_vec_dot_q8_K_arm(k, &o[4 + j], codes, d, d32, cols[j]);
        }
        bitcos_codes_vec_dot_q8_K_arm_x4(k, &o[8], codes, d, d32, cols);
        bitcos_row_to_tq2_0(k, blocks, bm, signs + off[r], d, d32, codes);
        for (int j = 0; j < 4; ++j) {
            if (per_tensor) {
                bitcos_tq2_0_f32_vec_dot_q8_K_neon(k, &o[12 + j], blocks, cols[j]);
            } else {
                bitcos_tq2_0_vec_dot_q8_K_ref(k, &o[12 + j], blocks, 0, BITCOS_ORDER_TQ2_ARM, cols[j]);
            }
        }
    }
    fwrite(out, sizeof(float), (size_t) rows * 16, stdout);
    return 0;
}
