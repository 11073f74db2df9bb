#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int32 : require

// BITCOS mat-vec (token generation), a twin of mul_mat_vec_tq2_0.comp.
//
// Float order: exactly TQ2_0's shader. Lane tid = 16*ix + 8*v_im + v_in
// takes, in 256-block i0 + ix of its rows, the 16 weights
// 128*v_im + 2*v_in + l + 16*m (l = 0, 1; m = 0..7), multiplies the f32 (or f16)
// activations with the code q = t + 1 in {0, 1, 2} and sums them in TQ2_0's
// fma chain (m = 7 first, m = 0 last), subtracts the plain sum of the same
// activations and adds d * (sumq - sumb) to its partial sum with one fma; the
// partials are reduced as TQ2_0's (reduce_result). The same q values in the
// same operations in the same order: on one device, with the same workgroup
// size, a BITCOS weight gives the bit-identical result of the TQ2_0 weight it
// came from. Only how a lane gets its codes differs.
//
// Sign cursor: a lane's weights sit at bits l0, l0+1, l0+16, l0+17 (l0 = 2*v_in)
// of each of the four 32-bit bitmap words of its half block. Each 8-lane half
// counts its non-zero weights (4 popcounts); one lane per half writes the count
// to shared memory (double-buffered: one barrier per iteration); each lane adds
// the counts of the halves before its own to the row's running cursor: an
// exclusive scan over the 2 * gl_WorkGroupSize.x/16 halves of the iteration,
// carried across iterations by their total. Within the half, word j's signs
// start after the popcounts of words 0..j-1, and weight b's sign is bit
// popcount(word & ((1 << b) - 1)) of the 32-bit window there; the codes of
// each pair of neighbouring weights come from a 16-entry table (bitcos_codes).

#define QUANT_K 256
#define A_TYPE uint
#define A_TYPEV4 uvec4

#include "mul_mat_vec_base.glsl"

#ifdef MUL_MAT_ID
#define BITCOS_BINDING 6
#else
#define BITCOS_BINDING 5
#endif
#include "bitcos_funcs.glsl"

layout(local_size_x_id = 0, local_size_y = 1, local_size_z = 1) in;

FLOAT_TYPE temp[NUM_COLS][NUM_ROWS];

// non-zero weights per half block of the current iteration, double-buffered
shared uint bitcos_cnt[2][NUM_ROWS][BLOCK_SIZE / 8];

// Codes q = t + 1 of two neighbouring weights from a 4-bit key: bits 0-1
// their presence, bits 2-3 the two sign bits from the first one's sign on
// (the second's sign is bit 3 when the first is non-zero, else bit 2). A
// 16-entry table in shared memory (the paper's table-lookup idea, one pair
// per lookup) replaces ~16 integer operations and two conversions per pair.
shared vec2 bitcos_pair_codes[16];

vec2 bitcos_pair_entry(const uint k) {
    const uvec2 pr = uvec2(k, k >> 1) & 1u;
    const uint sa = (k >> 2) & 1u;
    const uint sb = (k >> 3) & 1u;
    const uvec2 sg = uvec2(sa, pr.x != 0u ? sb : sa);
    return vec2(1u + pr - 2u * (pr & sg));         // 0 = -1, 1 = 0, 2 = +1
}

// codes of the lane's weights at bits l0, l0+1, l0+16, l0+17 of bitmap word
// w, whose signs start at bit 0 of win; m_lo, m_hi select the bits below l0
// and l0+16 (their ranks among the word's non-zero weights)
vec4 bitcos_codes(const uint w, const uint win, const uint l0, const uint m_lo, const uint m_hi) {
    const uint pl = (w >> l0) & 3u;                           // presence of l0, l0+1
    const uint ph = (w >> (l0 + 16u)) & 3u;                   // presence of l0+16, l0+17
    const uint sl = (win >> bitCount(w & m_lo)) & 3u;         // signs from l0's on
    const uint sh = (win >> bitCount(w & m_hi)) & 3u;         // signs from l0+16's on
    return vec4(bitcos_pair_codes[pl | (sl << 2)], bitcos_pair_codes[ph | (sh << 2)]);
}

void calc_superblock(const uint a_offset, const uint b_offset, const uint grow0, const uint y_offset, const uint i,
                     const uint num_blocks_per_row, const uint first_row, const uint num_rows, const uint v_im,
                     const uint l0, const uint m_lo, const uint m_hi, const uvec4 words[NUM_ROWS], const uint cursor[NUM_ROWS]) {
    const uint y_idx = i * QUANT_K + y_offset;

    [[unroll]] for (uint n = 0; n < num_rows; ++n) {
        if (i >= num_blocks_per_row) {
            continue;
        }

        uint pos = cursor[n];
        const uvec4 w = words[n];
        const vec4 qs_u32_0 = bitcos_codes(w.x, bitcos_window(pos), l0, m_lo, m_hi);
        pos += bitCount(w.x);
        const vec4 qs_u32_2 = bitcos_codes(w.y, bitcos_window(pos), l0, m_lo, m_hi);
        pos += bitCount(w.y);
        const vec4 qs_u32_4 = bitcos_codes(w.z, bitcos_window(pos), l0, m_lo, m_hi);
        pos += bitCount(w.z);
        const vec4 qs_u32_6 = bitcos_codes(w.w, bitcos_window(pos), l0, m_lo, m_hi);

        const FLOAT_TYPE d = FLOAT_TYPE(bitcos_scale(grow0 + n, i, num_blocks_per_row, p.fusion_flags));

        [[unroll]] for (uint j = 0; j < NUM_COLS; ++j) {
            vec2 b0 =   vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 +  0]);
            vec2 b16 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 +  8]);
            vec2 b32 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 16]);
            vec2 b48 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 24]);
            vec2 b64 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 32]);
            vec2 b80 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 40]);
            vec2 b96 =  vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 48]);
            vec2 b112 = vec2(data_b_v2[(j*p.batch_stride_b + b_offset + y_idx) / 2 + 56]);

            FLOAT_TYPE sumq = FLOAT_TYPE(0.0);
            FLOAT_TYPE sumb = FLOAT_TYPE(0.0);
            [[unroll]] for (int l = 0; l < 2; ++l) {
                sumq = fma(FLOAT_TYPE(b0[l]),   FLOAT_TYPE(qs_u32_0[l  ]),
                       fma(FLOAT_TYPE(b16[l]),  FLOAT_TYPE(qs_u32_0[l+2]),
                       fma(FLOAT_TYPE(b32[l]),  FLOAT_TYPE(qs_u32_2[l  ]),
                       fma(FLOAT_TYPE(b48[l]),  FLOAT_TYPE(qs_u32_2[l+2]),
                       fma(FLOAT_TYPE(b64[l]),  FLOAT_TYPE(qs_u32_4[l  ]),
                       fma(FLOAT_TYPE(b80[l]),  FLOAT_TYPE(qs_u32_4[l+2]),
                       fma(FLOAT_TYPE(b96[l]),  FLOAT_TYPE(qs_u32_6[l  ]),
                       fma(FLOAT_TYPE(b112[l]), FLOAT_TYPE(qs_u32_6[l+2]), sumq))))))));
                sumb += FLOAT_TYPE(b0[l]) + FLOAT_TYPE(b16[l]) + FLOAT_TYPE(b32[l]) + FLOAT_TYPE(b48[l])
                      + FLOAT_TYPE(b64[l]) + FLOAT_TYPE(b80[l]) + FLOAT_TYPE(b96[l]) + FLOAT_TYPE(b112[l]);
            }
            temp[j][n] = fma(d, sumq - sumb, temp[j][n]);
        }
    }
}

void compute_outputs(const uint32_t first_row, const uint32_t num_rows) {
    uint a_offset, b_offset, d_offset;
    get_offsets(a_offset, b_offset, d_offset);

    const uint num_blocks_per_row = p.ncols / QUANT_K;
    // a_offset counts 256-blocks from the first row of the tensor: the
    // companions' row of this workgroup's first row
    const uint grow0 = a_offset / num_blocks_per_row + first_row;

    // 16 threads are used to process each block
    const uint it_size = gl_WorkGroupSize.x/16;
    const uint tid = gl_LocalInvocationID.x;
    const uint itid = tid%16;  // 0...15
    const uint ix = tid/16;

    const uint v_im = itid/8;                                // 0 or 1. 0 computes 0..., 1 computes 128...
    const uint v_in = itid - 8*v_im;                         // 0...7

    const uint l0 = 2*v_in;                                  // 0...15
    const uint y_offset = 128*v_im + l0;
    const uint m_lo = (1u << l0) - 1u;
    const uint m_hi = (1u << (l0 + 16u)) - 1u;
    const uint half_id = 2*ix + v_im;                        // the lane's half in the iteration

    [[unroll]] for (uint j = 0; j < NUM_COLS; ++j) {
        [[unroll]] for (uint i = 0; i < NUM_ROWS; ++i) {
            temp[j][i] = FLOAT_TYPE(0);
        }
    }

    if (tid < 16) {
        bitcos_pair_codes[tid] = bitcos_pair_entry(tid); // visible after the first barrier below
    }

    uint row_pos[NUM_ROWS];  // stream bit position of each row's next iteration
    [[unroll]] for (uint n = 0; n < NUM_ROWS; ++n) {
        row_pos[n] = n < num_rows ? bitcos_row_start(grow0 + n) : 0u;
    }

    uint buf = 0;
    for (uint i0 = 0; i0 < num_blocks_per_row; i0 += it_size) {
        const uint i = i0 + ix;
        uvec4 words[NUM_ROWS];
        [[unroll]] for (uint n = 0; n < NUM_ROWS; ++n) {
            words[n] = (n < num_rows && i < num_blocks_per_row) ? data_a_v4[(a_offset + (first_row + n)*num_blocks_per_row + i)*2 + v_im] : uvec4(0);
            if (v_in == 0) {
                bitcos_cnt[buf][n][half_id] = bitCount(words[n].x) + bitCount(words[n].y) + bitCount(words[n].z) + bitCount(words[n].w);
            }
        }
        barrier();
        uint cursor[NUM_ROWS];
        [[unroll]] for (uint n = 0; n < NUM_ROWS; ++n) {
            uint before = 0;
            uint total = 0;
            for (uint h = 0; h < 2*it_size; ++h) {
                const uint c = bitcos_cnt[buf][n][h];
                before += h < half_id ? c : 0u;
                total += c;
            }
            cursor[n] = row_pos[n] + before;
            row_pos[n] += total;
        }
        buf ^= 1u;

        calc_superblock(a_offset, b_offset, grow0, y_offset, i, num_blocks_per_row, first_row, num_rows, v_im, l0, m_lo, m_hi, words, cursor);
    }

    reduce_result(temp, d_offset, first_row, num_rows, tid);
}

void main() {
    const uint first_row = NUM_ROWS * (gl_WorkGroupID.x + gl_NumWorkGroups.x * gl_WorkGroupID.z);

    // do NUM_ROWS at a time, unless there aren't enough remaining rows
    if (first_row + NUM_ROWS <= p.stride_d) {
        compute_outputs(first_row, NUM_ROWS);
    } else {
        if (first_row >= p.stride_d) {
            return;
        }
        compute_outputs(first_row, p.stride_d - first_row);
    }
}
