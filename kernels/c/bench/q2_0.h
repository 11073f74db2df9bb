// Q2_0 x Q8_0 dot product, the yardstick of advise's measurement of Q2_0
// sources (weights with fp16 scales per 64): what ggml's CPU backend runs for
// a Q2_0 file, and for a Q2_0-sourced BITCOS weight in either CPU layout (its
// Q2_0 blocks made at load, or each row decoded into them per product).
// Written for gguf-bitcos from the Q2_0 layout (format/q2_0.go), not copied
// from ggml; its float steps are those of ggml's ggml_vec_dot_q2_0_q8_0_generic
// at the pin (x86 has no SIMD Q2_0 kernel there).
#pragma once
#include <stdint.h>

typedef struct {
    uint16_t d;      // fp16 scale
    uint8_t  qs[16]; // weight j: bits 2*(j%4) of qs[j/4], code t+1
} q2_block;

typedef struct {
    uint16_t d;      // fp16 scale
    int8_t   qs[32];
} q8_0_block;

_Static_assert(sizeof(q2_block) == 18, "wrong q2_block size");
_Static_assert(sizeof(q8_0_block) == 34, "wrong q8_0_block size");

// n weights (a multiple of 64): per Q2_0 block i, per half k (32 weights,
// Q8_0 block 2i+k) the exact int sum of (code-1)*q, then
// sumi = sumi + d8 * (float) sum (two halves in order, from 0), then
// sumf = sumf + d2 * sumi; no fused multiply-add.
void q2_vec_dot_q8_0(int n, float * s, const q2_block * x, const q8_0_block * y);
