#version 450

// BITCOS to f16 for the matmul (prompt processing): one workgroup per row,
// lanes along the row (bitcos_funcs.glsl). Bindings: 0 the bitmap, 1 the f16
// output (rows contiguous), 2-4 the companions.

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
layout (binding = 1) writeonly buffer D {D_TYPE data_d[];};

#define BITCOS_BINDING 2
#include "bitcos_funcs.glsl"

void main() {
    const uint row = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (row >= p.nrows) {
        return; // the whole workgroup: no barrier is left waiting
    }
    bitcos_decode_row(row, row * (p.ncols / 32u), p.ncols, row * p.ncols, p.flags);
}
