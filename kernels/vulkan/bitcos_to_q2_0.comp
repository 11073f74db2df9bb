#version 450

// BITCOS to Q2_0 blocks, for Q2_0's own mat-vec and matmul pipelines: a
// weight with fp16 scales per 64 weights (a file repacked from Q2_0) comes
// back as the source's bytes (codes q = t + 1, the f16 scale copied bit for
// bit), so that Q2_0's shaders then run on the same bytes, with the same
// pipelines and float order as for the Q2_0 file: a bit-identical result.
// Scales per 64 only (the caller's choice, ggml_vk_bitcos_block_type).
//
// One workgroup per row, BITCOS_WG lanes. Each step takes BITCOS_WG bitmap
// words (32 weights each, half a Q2_0 block) of the row: lane tid reads word
// w0 + tid; its sign cursor is the row's start plus an exclusive workgroup
// scan of the words' popcounts (bitcos_funcs.glsl); the 32-bit sign window
// there is deposited into the word's set bits (neg: the negative weights).
// Q2_0 keeps weight j of a block in byte j/4, bits 2(j%4)..2(j%4)+1
// (ggml's quantize_row_q2_0_ref): code bit 0 is "zero" (q = 1), code bit 1
// is "+1" (q = 2), neither is -1 (q = 0); so the word's 8 bytes are its zero
// and plus bits interleaved. Output: block_q2_0 (the f16 d, then 16 qs bytes;
// 18 bytes, 2-aligned) as 9 16-bit words, rows contiguous.

#extension GL_EXT_control_flow_attributes : require

#include "types.glsl"

layout (push_constant) uniform parameter
{
    uint ncols;
    uint nrows;
    uint flags;
} p;

#define BITCOS_WG 64
layout(local_size_x = BITCOS_WG, local_size_y = 1, local_size_z = 1) in;

layout (binding = 0) readonly buffer A {uint data_a[];};
layout (binding = 1) writeonly buffer D {uint16_t data_d[];};

#define BITCOS_BINDING 2
#define BITCOS_DEPOSIT
#include "bitcos_funcs.glsl"

#define Q2_0_U16 9u // 16-bit words per block_q2_0

// bit i of the low 16 bits of x to bit 2i
uint spread16(uint x) {
    x &= 0xFFFFu;
    x = (x | (x << 8)) & 0x00FF00FFu;
    x = (x | (x << 4)) & 0x0F0F0F0Fu;
    x = (x | (x << 2)) & 0x33333333u;
    x = (x | (x << 1)) & 0x55555555u;
    return x;
}

void main() {
    const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (row >= p.nrows) {
        return; // the whole workgroup: no barrier is left waiting
    }
    const uint tid = gl_LocalInvocationID.x;
    bitcos_deposit_init();

    const uint nwords = p.ncols / 32u; // a multiple of 8: rows of whole 256-blocks
    const uint a_word = row * nwords;
    const uint d_row = row * (nwords / 2u) * Q2_0_U16;
    uint cursor = bitcos_row_start(row);
    for (uint w0 = 0u; w0 < nwords; w0 += BITCOS_WG) {
        const uint wi = w0 + tid;
        const uint w = wi < nwords ? data_a[a_word + wi] : 0u;
        uint total;
        const uint excl = bitcos_wg_scan(bitCount(w), total);
        if (wi < nwords) {
            const uint neg = bitcos_deposit(bitcos_window(cursor + excl), w);
            const uint zero = ~w;
            const uint plus = w & ~neg;
            const uint lo = spread16(zero) | (spread16(plus) << 1);             // weights 0..15: bytes 0..3
            const uint hi = spread16(zero >> 16) | (spread16(plus >> 16) << 1); // weights 16..31: bytes 4..7
            const uint blk = wi / 2u;
            const uint o = d_row + blk * Q2_0_U16 + 1u + 4u * (wi & 1u);
            data_d[o + 0u] = uint16_t(lo & 0xFFFFu);
            data_d[o + 1u] = uint16_t(lo >> 16);
            data_d[o + 2u] = uint16_t(hi & 0xFFFFu);
            data_d[o + 3u] = uint16_t(hi >> 16);
            if ((wi & 1u) == 0u) {
                data_d[d_row + blk * Q2_0_U16] = data_bitcos_scales_u16[row * (nwords / 2u) + blk];
            }
        }
        cursor += total;
    }
}
