// BITCOS to a device's own ternary type, at load, on the host: for a backend
// without a BITCOS path that runs TQ2_0 (Metal, Vulkan) or Q2_0 (CUDA, HIP),
// a weight is decoded once from the file's BITCOS bytes into blocks of that
// type, and the backend's own kernels run it. The values are the source's,
// bit for bit: each block takes the fp16 scale of the weights it holds.
//
// Q2_0 block (ggml-common.h, block_q2_0; 18 bytes per 64 weights):
// ggml_half d; uint8_t qs[16]. Weight j of the block is code
// (qs[j/4] >> 2*(j%4)) & 3, value (code - 1) * d: code t + 1, as TQ2_0's.
//
// TQ2_0 blocks: bitcos_layout.h (bitcos_row_to_tq2_0), the CPU's load-time
// layout; the same function serves the devices.
//
// Scales. A BITCOS weight's fp16 scales come in groups of G weights: 256
// (TQ2_0 and TQ1_0 sources) or 64 (Q2_0 sources), G = n / (scales per row).
// Q2_0 takes either (its block b of 64 weights gets scale (64*b)/G); TQ2_0
// only G = 256. A per-tensor f32 scale (I2_S sources) has no exact fp16 form:
// bitcos_select_device_layout keeps such weights off these types.

#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BITCOS_Q2_0_BLOCK_WEIGHTS 64
#define BITCOS_Q2_0_BLOCK_BYTES   18

// One row of n weights (n a multiple of 64) to n/64 Q2_0 blocks at dst; d16
// holds the row's n/G fp16 scales (their bits, unchanged), G = 64 or 256
// (n a multiple of G). codes: n bytes of scratch (the row is decoded whole
// first, bitcos_row_codes), so dst may overlap this row's bitmap (not its
// signs, d16 or codes).
void bitcos_row_to_q2_0(int n, uint8_t * dst, const uint8_t * bitmap, const uint8_t * signs, const uint16_t * d16,
                        int group, uint8_t * codes);

// A whole tensor: bitcos_check_rows (bitcos_layout.h), then, when it returns
// -1, every row r to its n/64 blocks at dst + r*(n/64)*18 with its scales
// d16 + r*(n/group). Returns the check's result; dst is untouched when it is
// not -1.
int64_t bitcos_to_q2_0(int64_t nrows, int n, uint8_t * dst, const uint8_t * bitmap, const int32_t * rows,
                       const uint8_t * signs, int64_t sign_bytes, const uint16_t * d16, int group, uint8_t * codes);

#ifdef __cplusplus
}
#endif
