#version 450

// BITCOS to TQ2_0 blocks, for TQ2_0's own matmul pipeline (prompt processing:
// MUL_MAT above 8 columns, MUL_MAT_ID above 8 tokens). The weight of a file
// repacked from TQ2_0 comes back as the source's bytes (codes q = t + 1, the
// f16 scale copied bit for bit), so that TQ2_0's matmul then runs on the same
// bytes, with the same pipeline, tiles and float order as for the TQ2_0 file:
// a bit-identical result. A one-f32-scale tensor gets its scale rounded to
// f16 (packHalf2x16), as any f16 path would.
//
// One workgroup per row, BITCOS_WG lanes. Each step takes BITCOS_WG bitmap
// words (32 weights each) of the row:
// 1. lane tid reads word w0 + tid; its sign cursor is the row's start plus an
//    exclusive workgroup scan of the words' popcounts (bitcos_funcs.glsl);
//    the 32-bit sign window there is deposited into the word's set bits
//    (neg: the negative weights), a nibble at a time through a 256-entry
//    table in shared memory;
// 2. the presence and neg words go to shared memory; lane tid = 4h + q then
//    writes bytes 8q..8q+7 of the 32 qs bytes of half block h (words 4h..4h+3
//    of the step): TQ2_0 keeps weight 32j + m of a half block in byte m,
//    bits 2j..2j+1 (ggml's quantize_row_tq2_0_ref), so byte m gathers bit m
//    of the four words: code bit 0 is "zero" (q = 1), code bit 1 is "+1"
//    (q = 2), neither is -1 (q = 0).
// Output: block_tq2_0 (64 qs bytes, then the f16 d; 66 bytes, 2-aligned) as
// 33 16-bit words, rows contiguous.

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

#define TQ2_0_U16 33u // 16-bit words per block_tq2_0

shared uint bitcos_pres[BITCOS_WG];
shared uint bitcos_neg[BITCOS_WG];

// bit i of x (i = 0..3) to bit 8i (the four terms x << 7i do not overlap)
uint spread4(const uint x) {
    return (x * 0x00204081u) & 0x01010101u;
}

// the f16 bits of the scale of 256-block blk of row grow
uint16_t bitcos_scale_bits(const uint grow, const uint blk, const uint nb, const uint flags) {
    if ((flags & BITCOS_SCALE_F32) != 0u) {
        return uint16_t(packHalf2x16(vec2(data_bitcos_scales32[0], 0.0)) & 0xFFFFu);
    }
    return data_bitcos_scales_u16[grow * nb + blk];
}

void main() {
    const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (row >= p.nrows) {
        return; // the whole workgroup: no barrier is left waiting
    }
    const uint tid = gl_LocalInvocationID.x;
    bitcos_deposit_init();

    const uint nwords = p.ncols / 32u; // a multiple of 8: rows of whole 256-blocks
    const uint nb = p.ncols / 256u;
    const uint a_word = row * nwords;
    const uint d_row = row * nb * TQ2_0_U16;
    const uint h = tid / 4u; // half block of the step that lane tid writes
    const uint q = tid % 4u; // its bytes 8q..8q+7
    uint cursor = bitcos_row_start(row);
    for (uint w0 = 0u; w0 < nwords; w0 += BITCOS_WG) {
        const uint wi = w0 + tid;
        const uint w = wi < nwords ? data_a[a_word + wi] : 0u;
        uint total;
        const uint excl = bitcos_wg_scan(bitCount(w), total);
        bitcos_pres[tid] = w;
        bitcos_neg[tid] = wi < nwords ? bitcos_deposit(bitcos_window(cursor + excl), w) : 0u;
        barrier();

        const uint hw = w0 + 4u * h; // the half block's first word in the row
        if (hw < nwords) {
            uvec2 bytes = uvec2(0u);   // bytes 8q..8q+3, 8q+4..8q+7
            [[unroll]] for (uint j = 0u; j < 4u; ++j) {
                const uint pres = (bitcos_pres[4u * h + j] >> (8u * q)) & 0xFFu;
                const uint neg = (bitcos_neg[4u * h + j] >> (8u * q)) & 0xFFu;
                const uint zero = ~pres & 0xFFu;
                const uint plus = pres & ~neg;
                bytes.x |= (spread4(zero & 15u) | (spread4(plus & 15u) << 1)) << (2u * j);
                bytes.y |= (spread4(zero >> 4) | (spread4(plus >> 4) << 1)) << (2u * j);
            }
            const uint blk = hw / 8u;
            const uint o = d_row + blk * TQ2_0_U16 + 16u * ((hw / 4u) & 1u) + 4u * q;
            data_d[o + 0u] = uint16_t(bytes.x & 0xFFFFu);
            data_d[o + 1u] = uint16_t(bytes.x >> 16);
            data_d[o + 2u] = uint16_t(bytes.y & 0xFFFFu);
            data_d[o + 3u] = uint16_t(bytes.y >> 16);
            if (q == 0u && (hw & 7u) == 0u) {
                data_d[d_row + blk * TQ2_0_U16 + 32u] = bitcos_scale_bits(row, blk, nb, p.flags);
            }
        }
        cursor += total;
        barrier(); // all have read bitcos_pres/neg before the next step writes them
    }
}
