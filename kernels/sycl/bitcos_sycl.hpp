// BITCOS device kernels in plain SYCL 2020 (no dpct).
//
// The one source of truth for ggml-sycl: patch 0008 carries this file byte
// for byte as ggml/src/ggml-sycl/bitcos/bitcos_sycl.hpp, and
// kernels/sycl_test.go runs it on the CPU under SimSYCL at sub-group sizes 16
// and 32 against the Go reference. kernels/README.md ("SYCL") argues the
// design; in short:
//
// - Layout (docs/FORMAT.md): a row of K weights is K/32 presence words
//   (weight j = bit j%32 of word j/32, the little-endian reading of the
//   bitmap bytes), its signs a compacted stream starting at byte rows[r] of
//   the sign tensor, one bit per non-zero weight, 1 = negative.
// - One sub-group per output row, lanes along the row: lane l takes presence
//   word w = w0 + l, so a step of W lanes covers W/8 whole 256-blocks. The
//   lane's sign cursor is the row's cursor plus an exclusive scan of the
//   words' popcounts over the sub-group; the group total carries it to the
//   next step. No serial chain across lanes.
// - Per 4 weights: key = presence nibble | next 4 sign bits << 4 indexes a
//   256-entry table (in local memory) of the four weights as int8 {-1,0,+1},
//   one dp4a against the four Q8_K activations; the sign window shifts by
//   popcount(nibble) (the paper's Xe2 table, DESIGN §8, with int8 entries).
// - Activations: Q8_K (ggml's block_q8_K, quantized on the device by
//   quantize_q8_K below, as the CPU backend's quantize_row_q8_K_ref).
// - Float order: exactly kernels.VecDotQ8K (= the CPU's exact-order BITCOS
//   kernels = TQ2_0's generic kernel): per 256-block b in order, the exact
//   int32 sumi_b (reduced over the block's 8 lanes by xor shuffles: integer,
//   so order-free), then d = y[b].d * scale_b and sumf = sumf + (float)
//   sumi_b * d, a rounded multiply and a rounded add, in block order, by every
//   lane of the sub-group alike. Independent of the sub-group size; the
//   pragmas below forbid FMA contraction and reassociation in clang-based
//   compilers (icpx), whatever -fp-model says.

#pragma once

#include <sycl/sycl.hpp>

#include <cstdint>
#include <cstring>

// c + the dot product of the four signed bytes of a and b. ggml-sycl defines
// it as dpct::dp4a (the DP4A instruction) before including this file.
#ifndef BITCOS_SYCL_DP4A
#define BITCOS_SYCL_DP4A(a, b, c) bitcos_sycl::dp4a_ref((a), (b), (c))
#endif

// Test hook only (kernels/sycl_test.go builds with it to prove that its
// comparison can fail): 1 = the sign window advances by 4 per nibble instead
// of popcount(nibble); 2 = the cursor carried to the next step misses the
// last lane's word; 3 = every window starts 64 bits late, so the last row's
// windows run past the 8-byte tail, out of the sign tensor.
#ifndef BITCOS_SYCL_BREAK
#define BITCOS_SYCL_BREAK 0
#endif

namespace bitcos_sycl {

constexpr int QK          = 256;  // weights per scale block and per Q8_K block
constexpr int Q8K_BYTES   = 292;  // sizeof(block_q8_K): float d, int8 qs[256], int16 bsums[16]
constexpr int Q8K_QS      = 4;    // offsetof(block_q8_K, qs)
constexpr int Q8K_BSUMS   = 260;  // offsetof(block_q8_K, bsums)
constexpr int TABLE_SIZE  = 256;  // entries of the nibble table
constexpr int ROWS_PER_WG = 4;    // sub-groups (rows) per work-group

inline int32_t dp4a_ref(int32_t a, int32_t b, int32_t c) {
    for (int i = 0; i < 4; ++i) {
        c += (int32_t) (int8_t) (a >> (8 * i)) * (int32_t) (int8_t) (b >> (8 * i));
    }
    return c;
}

// fp16 bits -> float, exact (the scales are stored as IEEE binary16).
inline float fp16_to_fp32(uint16_t h) {
    return (float) sycl::bit_cast<sycl::half>(h);
}

// The nibble table: entry key = p | s << 4 holds the four weights of a
// presence nibble p whose present weights take the signs s in order (bit k of
// s: the k-th present weight, 1 = negative), weight i in byte i, as int8
// -1, 0 or +1. Sign bits beyond popcount(p) do not matter.
inline int32_t table_entry(int key) {
    const int p = key & 15;
    int       s = key >> 4;
    uint32_t  v = 0;
    for (int i = 0; i < 4; ++i) {
        if (p >> i & 1) {
            v |= (s & 1 ? 0xffu : 0x01u) << (8 * i);
            s >>= 1;
        }
    }
    return (int32_t) v;
}

// Fills the table cooperatively; every work-item of the group must call it.
template <int D> inline void fill_table(const sycl::nd_item<D> & it, int32_t * table) {
    const size_t n = it.get_local_range().size();
    for (size_t i = it.get_local_linear_id(); i < (size_t) TABLE_SIZE; i += n) {
        table[i] = table_entry((int) i);
    }
    sycl::group_barrier(it.get_group());
}

// 32 sign bits starting at bit pos of the 4-byte aligned words at signs
// (pos < 2^32: a row's start within its word plus its bits). It reads the
// two aligned words holding bits [pos, pos + 32): no further than 7 bytes
// past the byte holding bit pos, which FORMAT.md's 8-byte tail keeps inside
// the tensor for any cursor up to a row's end.
inline uint32_t sign_window(const uint32_t * signs, uint32_t pos) {
    const uint32_t * p  = signs + (pos >> 5);
    const uint32_t   sh = pos & 31;
    const uint32_t   lo = p[0];
    return sh == 0 ? lo : (lo >> sh) | (p[1] << (32 - sh));
}

// The row's 256-block scale b: fp16 d16[b], or the per-tensor *d32 (a device
// pointer, so that no host read of the scale tensor is needed).
inline float block_scale(const uint16_t * d16, const float * d32, int b) {
    return d16 != nullptr ? fp16_to_fp32(d16[b]) : *d32;
}

// Dot product of one BITCOS row with one column of K/256 Q8_K blocks, computed
// by the whole sub-group sg (every work-item calls it, every one gets the
// result). bitmap: the row's K/32 presence words; signs: the sign tensor;
// row_start: rows[r]; d16: the row's K/256 fp16 scales, or nullptr and *d32;
// y: the column's blocks (4-byte aligned). K % 256 == 0; the sub-group size
// is a multiple of 8.
template <typename SG>
inline float dot_q8_K(const SG & sg, const int32_t * table, const uint32_t * bitmap, const uint32_t * signs,
                      uint32_t row_start, const uint16_t * d16, const float * d32, const uint8_t * y, int k) {
#ifdef __clang__
#pragma clang fp contract(off)
#pragma clang fp reassociate(off)
#endif
    const int W       = (int) sg.get_local_linear_range();
    const int lane    = (int) sg.get_local_linear_id();
    const int nwords  = k / 32;
    const int nblocks = k / QK;
    // the row's signs as 32-bit words from its first aligned word: bit cur of
    // them is the step's first sign (32-bit offsets: a row holds < 2^31 bits)
    const uint32_t * sw   = signs + (row_start >> 2);
    uint32_t         cur  = (row_start & 3) * 8;
    float            sumf = 0.0f;
    for (int w0 = 0; w0 < nwords; w0 += W) {
        const int      w      = w0 + lane;
        const bool     active = w < nwords;  // whole 8-lane groups, as W and nwords are multiples of 8
        const uint32_t m      = active ? bitmap[w] : 0u;
        const uint32_t pc     = (uint32_t) sycl::popcount(m);
        const uint32_t before = sycl::exclusive_scan_over_group(sg, pc, sycl::plus<uint32_t>());
#if BITCOS_SYCL_BREAK == 2
        const uint32_t total = sycl::group_broadcast(sg, before, W - 1);
#else
        const uint32_t total = sycl::group_broadcast(sg, before + pc, W - 1);
#endif
        int32_t        sumi  = 0;
        if (active) {
#if BITCOS_SYCL_BREAK == 3
            uint32_t win = sign_window(sw, cur + before + 64);
#else
            uint32_t win = sign_window(sw, cur + before);
#endif
            const int32_t * q   = (const int32_t *) (y + (size_t) (w >> 3) * Q8K_BYTES + Q8K_QS + (w & 7) * 32);
            for (int g = 0; g < 8; ++g) {
                const uint32_t nib = (m >> (4 * g)) & 15u;
                sumi               = BITCOS_SYCL_DP4A(table[nib | (win & 15u) << 4], q[g], sumi);
#if BITCOS_SYCL_BREAK == 1
                win >>= 4;
#else
                win >>= sycl::popcount(nib);
#endif
            }
        }
        // the block's 8 lanes: exact integer sum, any order
        sumi += sycl::permute_group_by_xor(sg, sumi, 1);
        sumi += sycl::permute_group_by_xor(sg, sumi, 2);
        sumi += sycl::permute_group_by_xor(sg, sumi, 4);
        // the float steps, in block order, alike in every lane
        for (int g = 0; g < W / 8; ++g) {
            const int     b = (w0 >> 3) + g;
            const int32_t s = sycl::select_from_group(sg, sumi, 8 * g);
            if (b < nblocks) {
                float yd;
                std::memcpy(&yd, y + (size_t) b * Q8K_BYTES, sizeof(float));
                const float d = yd * block_scale(d16, d32, b);
                const float p = (float) s * d;
                sumf          = sumf + p;
            }
        }
        cur += total;
    }
    return sumf;
}

// Decodes one BITCOS row to out[0..K) by the whole sub-group: out[j] =
// T(t_j * d_b), t_j in {-1, 0, +1} as float, d_b the scale of j's block of
// group weights (d16: the row's K/group fp16 scales, group 256 or 64 for Q2_0
// sources; or nullptr and *d32): kernels.DequantizeRow (one rounded multiply:
// a zero weight under a negative scale gives -0). T = float, or sycl::half
// where the product is exact (fp16 scales).
template <typename T, typename SG>
inline void dequantize_row(const SG & sg, const uint32_t * bitmap, const uint32_t * signs, uint32_t row_start,
                           const uint16_t * d16, int group, const float * d32, T * out, int k) {
    const int W      = (int) sg.get_local_linear_range();
    const int lane   = (int) sg.get_local_linear_id();
    const int nwords = k / 32;
    const uint32_t * sw  = signs + (row_start >> 2);
    uint32_t         cur = (row_start & 3) * 8;
    for (int w0 = 0; w0 < nwords; w0 += W) {
        const int      w      = w0 + lane;
        const bool     active = w < nwords;
        const uint32_t m      = active ? bitmap[w] : 0u;
        const uint32_t pc     = (uint32_t) sycl::popcount(m);
        const uint32_t before = sycl::exclusive_scan_over_group(sg, pc, sycl::plus<uint32_t>());
        const uint32_t total  = sycl::group_broadcast(sg, before + pc, W - 1);
        if (active) {
            uint32_t    win = sign_window(sw, cur + before);
            const float d   = block_scale(d16, d32, w * 32 / group);
            for (int i = 0; i < 32; ++i) {
                const uint32_t present = (m >> i) & 1u;
                const float    t       = present ? ((win & 1u) ? -1.0f : 1.0f) : 0.0f;
                win >>= present;
                out[w * 32 + i] = T(t * d);
            }
        }
        cur += total;
    }
}

// ggml's nearest_int: round to nearest, ties to even, through 1.5 * 2^23.
inline int32_t nearest_int(float f) {
#ifdef __clang__
#pragma clang fp contract(off)
#pragma clang fp reassociate(off)
#endif
    const float v = f + 12582912.0f;
    return (int32_t) (sycl::bit_cast<uint32_t>(v) & 0x007fffffu) - 0x00400000;
}

// Quantizes one 256-block x of activations into the block_q8_K at out, by the
// whole sub-group (size W, a divisor of 256 and at least 16), as
// quantize_row_q8_K_ref: max = the value of largest magnitude (the first on
// ties), iscale = -127/max, q = min(127, nearest_int(iscale * x)), d =
// 1/iscale, bsums = sums of 16; an all-zero block gets d = 0 and zero quants.
// Lane l takes elements [l*256/W, (l+1)*256/W).
template <typename SG> inline void quantize_q8_K(const SG & sg, const float * x, uint8_t * out) {
#ifdef __clang__
#pragma clang fp contract(off)
#pragma clang fp reassociate(off)
#endif
    const int W    = (int) sg.get_local_linear_range();
    const int lane = (int) sg.get_local_linear_id();
    const int n    = QK / W;
    const int j0   = lane * n;
    float     amax = 0.0f, max = 0.0f;
    int       at   = QK;  // index of max (QK: none yet)
    for (int j = j0; j < j0 + n; ++j) {
        const float ax = sycl::fabs(x[j]);
        if (ax > amax) {
            amax = ax;
            max  = x[j];
            at   = j;
        }
    }
    for (int mask = 1; mask < W; mask <<= 1) {
        const float oamax = sycl::permute_group_by_xor(sg, amax, mask);
        const float omax  = sycl::permute_group_by_xor(sg, max, mask);
        const int   oat   = sycl::permute_group_by_xor(sg, at, mask);
        if (oamax > amax || (oamax == amax && oat < at)) {
            amax = oamax;
            max  = omax;
            at   = oat;
        }
    }
    int8_t * qs = (int8_t *) (out + Q8K_QS);
    if (amax == 0.0f) {
        for (int j = j0; j < j0 + n; ++j) {
            qs[j] = 0;
        }
    } else {
        const float iscale = -127.0f / max;
        for (int j = j0; j < j0 + n; ++j) {
            const float   v = iscale * x[j];
            const int32_t q = nearest_int(v);
            qs[j]           = (int8_t) (q < 127 ? q : 127);
        }
    }
    sycl::group_barrier(sg);
    if (lane < QK / 16) {
        int32_t s = 0;
        for (int j = 16 * lane; j < 16 * lane + 16; ++j) {
            s += qs[j];
        }
        const int16_t s16 = (int16_t) s;
        std::memcpy(out + Q8K_BSUMS + 2 * lane, &s16, sizeof(s16));
    }
    if (lane == 0) {
        const float d = amax == 0.0f ? 0.0f : 1.0f / (-127.0f / max);
        std::memcpy(out, &d, sizeof(d));
    }
}

// ---- launchers (SG: the sub-group size the kernels are compiled for) ----

#if defined(__INTEL_LLVM_COMPILER) || defined(__SYCL_COMPILER_VERSION)
#define BITCOS_SYCL_SG_SIZE(n) [[sycl::reqd_sub_group_size(n)]]
#else
#define BITCOS_SYCL_SG_SIZE(n)  // SimSYCL: the simulated device's sub-group size
#endif

// Each work-group owns ROWS_PER_WG consecutive rows (blocks, for the
// quantizer) of the last dimension; its sub-groups take them in turn. With
// the sub-group size the launch asks for, that is one row per sub-group;
// should a device run another size (a build where reqd_sub_group_size is not
// honoured, SimSYCL), every row is still done.
template <int D> inline int group_row(const sycl::nd_item<D> & it, const sycl::sub_group & sg) {
    return (int) (it.get_group(D - 1) * ROWS_PER_WG + sg.get_group_linear_id());
}

template <int D> inline int group_end(const sycl::nd_item<D> & it, int n) {
    const int end = (int) (it.get_group(D - 1) + 1) * ROWS_PER_WG;
    return end < n ? end : n;
}

inline int step(const sycl::sub_group & sg) {
    return (int) sg.get_group_linear_range();
}

// A BITCOS weight on the device: the presence bitmap, the sign tensor, the
// row index (rows + 1 int32) and fp16 scales [K/group, rows] (or nullptr and
// the per-tensor scale *d32), all in device memory. group: the weights per
// fp16 scale, 256, or 64 for Q2_0 sources, which the decodes (dequantize,
// get_rows) take and the GEMV does not (its float steps are per 256-block).
struct weight {
    const uint32_t * bitmap;
    const uint32_t * signs;
    const int32_t *  rows;
    const uint16_t * d16;
    const float *    d32;
    int              k;
    int              group;
};

// row r's fp16 scales, or nullptr with a per-tensor scale
inline const uint16_t * row_scales(const weight & w, size_t r) {
    return w.d16 != nullptr ? w.d16 + r * (size_t) (w.k / w.group) : nullptr;
}

// dst[c * dst_stride + r] = row r . column c, for rows [0, nrows) and columns
// [0, ncols); column c's Q8_K blocks start at y + c * y_stride bytes. Scales
// per 256 weights or per tensor only (w.group 256).
template <int SG>
inline sycl::event mul_mat_vec_q8_K(sycl::queue & q, const weight & wt, int nrows, const uint8_t * y,
                                    size_t y_stride, int ncols, float * dst, size_t dst_stride) {
    const size_t wg     = (size_t) ROWS_PER_WG * SG;
    const size_t groups = ((size_t) nrows + ROWS_PER_WG - 1) / ROWS_PER_WG;
    return q.submit([&](sycl::handler & cgh) {
        sycl::local_accessor<int32_t, 1> table(sycl::range<1>(TABLE_SIZE), cgh);
        const weight                     w = wt;
        cgh.parallel_for(sycl::nd_range<2>(sycl::range<2>(ncols, groups * wg), sycl::range<2>(1, wg)),
                         [=](sycl::nd_item<2> it) BITCOS_SYCL_SG_SIZE(SG) {
                             int32_t * tab = &table[0];
                             fill_table(it, tab);
                             const auto sg = it.get_sub_group();
                             const int  c  = (int) it.get_global_id(0);
                             for (int r = group_row(it, sg); r < group_end(it, nrows); r += step(sg)) {
                                 const float s = dot_q8_K(sg, tab, w.bitmap + (size_t) r * (w.k / 32), w.signs,
                                                          (uint32_t) w.rows[r],
                                                          w.d16 ? w.d16 + (size_t) r * (w.k / QK) : nullptr, w.d32,
                                                          y + (size_t) c * y_stride, w.k);
                                 if (sg.get_local_linear_id() == 0) {
                                     dst[(size_t) c * dst_stride + r] = s;
                                 }
                             }
                         });
    });
}

// GET_ROWS: out[i * out_stride .. + K) = row (i / per) * nrows_per + idx[i]
// decoded, for i in [0, n): index i picks a row of matrix i / per (ggml's
// get_rows: src1 row i11 of batch i12 reads matrix i11 + i12 * ne11 of a 3-D
// src0, so per = ne10 and nrows_per = ne01; per = n for a 2-D src0). An
// index outside [0, nrows_per) gives a row of zeros instead of reading out
// of bounds.
template <int SG, typename T>
inline sycl::event get_rows(sycl::queue & q, const weight & wt, int per, int nrows_per, const int32_t * idx, int n,
                            T * out, size_t out_stride) {
    const size_t wg     = (size_t) ROWS_PER_WG * SG;
    const size_t groups = ((size_t) n + ROWS_PER_WG - 1) / ROWS_PER_WG;
    const weight w      = wt;
    return q.parallel_for(sycl::nd_range<1>(groups * wg, wg), [=](sycl::nd_item<1> it) BITCOS_SYCL_SG_SIZE(SG) {
        const auto sg = it.get_sub_group();
        for (int i = group_row(it, sg); i < group_end(it, n); i += step(sg)) {
            const int32_t ir = idx[i];
            T *           o  = out + (size_t) i * out_stride;
            if (ir < 0 || ir >= nrows_per) {
                for (int j = (int) sg.get_local_linear_id(); j < w.k; j += (int) sg.get_local_linear_range()) {
                    o[j] = T(0.0f);
                }
                continue;
            }
            const size_t r = (size_t) (i / per) * nrows_per + ir;
            dequantize_row(sg, w.bitmap + r * (w.k / 32), w.signs, (uint32_t) w.rows[r], row_scales(w, r), w.group, w.d32, o,
                           w.k);
        }
    });
}

// out[r * K .. + K) = row r decoded, for rows [0, nrows) (the dequantize-
// then-GEMM path of batches).
template <int SG, typename T>
inline sycl::event dequantize(sycl::queue & q, const weight & wt, int nrows, T * out) {
    const size_t wg     = (size_t) ROWS_PER_WG * SG;
    const size_t groups = ((size_t) nrows + ROWS_PER_WG - 1) / ROWS_PER_WG;
    const weight w      = wt;
    return q.parallel_for(sycl::nd_range<1>(groups * wg, wg), [=](sycl::nd_item<1> it) BITCOS_SYCL_SG_SIZE(SG) {
        const auto sg = it.get_sub_group();
        for (int r = group_row(it, sg); r < group_end(it, nrows); r += step(sg)) {
            dequantize_row(sg, w.bitmap + (size_t) r * (w.k / 32), w.signs, (uint32_t) w.rows[r], row_scales(w, (size_t) r),
                           w.group, w.d32, out + (size_t) r * w.k, w.k);
        }
    });
}

// Quantizes ncols columns of k activations (column c at x + c * x_stride
// floats) into Q8_K blocks (column c at y + c * y_stride bytes).
template <int SG>
inline sycl::event quantize_q8_K_cols(sycl::queue & q, const float * x, size_t x_stride, int k, int ncols, uint8_t * y,
                                      size_t y_stride) {
    const int    nb     = k / QK;
    const size_t wg     = (size_t) ROWS_PER_WG * SG;
    const size_t groups = ((size_t) nb + ROWS_PER_WG - 1) / ROWS_PER_WG;
    return q.parallel_for(sycl::nd_range<2>(sycl::range<2>(ncols, groups * wg), sycl::range<2>(1, wg)),
                          [=](sycl::nd_item<2> it) BITCOS_SYCL_SG_SIZE(SG) {
                              const auto sg = it.get_sub_group();
                              const int  c  = (int) it.get_global_id(0);
                              for (int b = group_row(it, sg); b < group_end(it, nb); b += step(sg)) {
                                  quantize_q8_K(sg, x + (size_t) c * x_stride + (size_t) b * QK,
                                                y + (size_t) c * y_stride + (size_t) b * Q8K_BYTES);
                              }
                          });
}

}  // namespace bitcos_sycl
