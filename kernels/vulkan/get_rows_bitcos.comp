#version 450

// GET_ROWS of a BITCOS weight (a ternary token embedding): one workgroup per
// fetched row, lanes along the row (bitcos_funcs.glsl). Bindings: 0 the
// bitmap, 1 the row ids, 2 the output, 3-5 the companions; param3 holds the
// flags (BITCOS_SCALE_F32).

#extension GL_EXT_control_flow_attributes : require

#define A_TYPE uint

#include "types.glsl"
#include "generic_binary_head.glsl"

#define BITCOS_WG 64
layout(local_size_x = BITCOS_WG, local_size_y = 1, local_size_z = 1) in;

#define BITCOS_BINDING 3
#define BITCOS_DECODE_ROW
#include "bitcos_funcs.glsl"

void main() {
    const uint i10 = gl_WorkGroupID.x;
    const uint i11 = gl_WorkGroupID.y / p.ne12;
    const uint i12 = gl_WorkGroupID.y % p.ne12;

    const uint i01 = data_b[i10*p.nb10 + i11*p.nb11 + i12*p.nb12];
    // companions number the rows of the whole (contiguous) tensor in order
    const uint grow = i01 + i11*p.ne01 + i12*p.ne01*p.ne02;
    const uint d_offset = i10*p.nb21 + i11*p.nb22 + i12*p.nb23;

    bitcos_decode_row(grow, grow * (p.ne00 / 32u), p.ne00, d_offset, uint(p.param3));
}
