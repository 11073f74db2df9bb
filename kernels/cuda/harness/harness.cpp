// CPU harness for kernels/cuda/bitcos_cuda.cuh (a test aid, not part of the
// patch). kernels/cuda_test.go builds it with g++ and drives it:
//
//   harness IN.bin OUT.bin
//
// IN.bin starts with "BCCU" (the cases below) or "BCCM" (one mat-vec launch over
// its whole grid, run_mmv).
//
// It runs the header's functions over the launch geometry the header describes:
// per row BITCOS_CUDA_MMV_WARPS warps of 32 simulated lanes in lockstep (the
// decodes: one warp), or the segmented or paired geometry (one warp; the paired
// one on staged activations), ggml's warp_prefix_inclusive_sum and
// warp_reduce_sum transcribed over those lanes (shfl_up / shfl_xor with width 32).
// It also runs a transcription of ggml-cuda's quantize_q8_1 kernel (quantize.cu),
// so the Go twin of the activation quantizer is checked against it, and the
// BITCOS -> Q2_0 and BITCOS -> float decodes over the same geometry and scan.
//
// IN.bin (little-endian): "BCCU", u32 ncases, then per case
//   i32 k, rows, ncols, scales (0 fp16 per 256, 1 one f32, 2 fp16 per 64); f32 d32;
//   u32 sign_bytes; bitmap[rows*k/8]; signs[sign_bytes]; i32 rowidx[rows+1];
//   u16 d16[rows*k/256] or [rows*k/64] (absent with one f32);
//   block_q8_1 [ncols][k/32] (36 bytes each); f32 x[ncols][k]
// OUT.bin: u32 table[256] (bitcos_cuda_table), then per case
//   f32 dot[ncols][rows] (with the given q8_1 blocks);
//   block_q8_1 [ncols][k/32] quantized from x by the quantize_q8_1 transcription;
//   block_q2_0 [rows][k/64] from bitcos_cuda_chunk_to_q2_0 (d = 1.0 with an f32 scale);
//   f32 [rows][k] from bitcos_cuda_chunk_to_float
//
// The bitmap and the sign stream end right before an inaccessible page, so a read
// past them crashes the run instead of going unnoticed.

#include "cuda_shim.h"
// the shim goes first: the header uses its types
#include "../bitcos_cuda.cuh"
#include "../../internal/harness/harness_io.h"  // die, reader, guarded, put

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int W = BITCOS_CUDA_LANES;

// ggml's warp_prefix_inclusive_sum<int, 32>: for offset 1, 2, 4, 8, 16, lane l
// adds lane l - offset's value (__shfl_up_sync) when l >= offset.
void warp_prefix_inclusive_sum(int x[W]) {
    for (int offset = 1; offset < W; offset <<= 1) {
        int t[W];
        for (int l = 0; l < W; ++l) {
            t[l] = l >= offset ? x[l - offset] : x[l];  // shfl_up returns the own value below offset
        }
        for (int l = 0; l < W; ++l) {
            if (l >= offset) {
                x[l] += t[l];
            }
        }
    }
}

// ggml's warp_reduce_sum<32> (int or float): for offset 16, 8, 4, 2, 1,
// x += __shfl_xor_sync(x, offset), all lanes at once.
template <typename T> void warp_reduce_sum(T x[W]) {
    for (int offset = W / 2; offset > 0; offset >>= 1) {
        T t[W];
        for (int l = 0; l < W; ++l) {
            t[l] = x[l ^ offset];
        }
        for (int l = 0; l < W; ++l) {
            x[l] += t[l];
        }
    }
}

// ggml's warp_reduce_max<32>(float): x = fmaxf(x, __shfl_xor_sync(x, offset)).
void warp_reduce_max(float x[W]) {
    for (int offset = W / 2; offset > 0; offset >>= 1) {
        float t[W];
        for (int l = 0; l < W; ++l) {
            t[l] = x[l ^ offset];
        }
        for (int l = 0; l < W; ++l) {
            x[l] = std::fmax(x[l], t[l]);
        }
    }
}

// A row's start, for the loops below: its presence words, and each of T
// threads' sign words and cursor (all the same: bitcos_cuda_row_signs).
template <int T> struct row_start {
    int              nchunks;
    const uint32_t * bm;
    uint32_t         cur[T];
    const uint32_t * sw[T];

    row_start(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, int k, int r) :
        nchunks(k / BITCOS_CUDA_CHUNK),
        bm(bitmap + (size_t) r * nchunks) {
        for (int t = 0; t < T; ++t) {
            sw[t] = bitcos_cuda_row_signs(signs, rows[r], cur[t]);
        }
    }
};

// The caller's loop of bitcos_cuda.cuh over one row, thread by thread, with NW
// warps per row: per step of 32*NW chunks the presence words, each warp's scan
// of their popcounts, the warps' totals (lane 31's inclusive prefix) summed
// over the earlier warps and over all; step(thread, c, m, sw, pos) for each
// thread whose chunk c is in the row, with its sign words and cursor. The
// mat-vec (NW = BITCOS_CUDA_MMV_WARPS) and the decodes (NW = 1: one warp per
// row) share it, as their __global__ kernels share bitcos_cuda_row_threads.
template <int NW, typename Step>
void row_threads(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, int k, int r, Step step) {
    constexpr int     T = NW * W;
    row_start<T>      rs(bitmap, signs, rows, k, r);
    const int         nchunks = rs.nchunks;
    const uint32_t *  bm      = rs.bm;
    uint32_t *        cur     = rs.cur;
    const uint32_t ** sw      = rs.sw;
    for (int c0 = 0; c0 < nchunks; c0 += T) {
        uint32_t m[T];
        int      pc[T], incl[T];
        for (int t = 0; t < T; ++t) {
            m[t]    = bitcos_cuda_word(bm, c0 + t, nchunks);
            pc[t]   = __popc(m[t]);
            incl[t] = pc[t];
        }
        uint32_t wtotal[NW];
        for (int w = 0; w < NW; ++w) {
            warp_prefix_inclusive_sum(incl + w * W);
            wtotal[w] = (uint32_t) incl[w * W + W - 1];
        }
        for (int t = 0; t < T; ++t) {
            uint32_t before = 0, total = 0;
            for (int w = 0; w < NW; ++w) {
                before += w < t / W ? wtotal[w] : 0;
                total += wtotal[w];
            }
            const int c = c0 + t;
            if (c < nchunks) {
                step(t, c, m[t], sw[t], bitcos_cuda_thread_pos(cur[t], before, incl[t], pc[t]));
            }
            cur[t] += total;
        }
    }
}

template <typename Step>
void row_lanes(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, int k, int r, Step step) {
    row_threads<1>(bitmap, signs, rows, k, r, step);
}

// The segmented geometry's loop (BITCOS_CUDA_MMV_SEGMENTS; bitcos_cuda.cuh):
// per step the lanes' runs of chunks, their presence words, the warp scan of
// the runs' popcount sums; step(lane, c, m, sw, pos) for each chunk of each
// lane's run in order, the lane's cursor advancing by the chunk's popcount.
template <typename Step>
void row_segments(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, int k, int r, Step step) {
    constexpr int     S = BITCOS_CUDA_SEG;
    row_start<W>      rs(bitmap, signs, rows, k, r);
    const int         nchunks = rs.nchunks;
    const uint32_t *  bm      = rs.bm;
    uint32_t *        cur     = rs.cur;
    const uint32_t ** sw      = rs.sw;
    for (int s0 = 0; s0 < nchunks; s0 += W * S) {
        const int n = std::min(W * S, nchunks - s0);
        int       c0[W], cnt[W], pc[W], incl[W];
        uint32_t  m[W][S];
        for (int l = 0; l < W; ++l) {
            bitcos_cuda_segment(l, n, c0[l], cnt[l]);
            if (cnt[l] < 0 || cnt[l] > S) {
                die("a lane's run is longer than BITCOS_CUDA_SEG");
            }
            c0[l] += s0;
            pc[l] = 0;
            for (int j = 0; j < S; ++j) {
                m[l][j] = j < cnt[l] ? bm[c0[l] + j] : 0u;
                pc[l] += __popc(m[l][j]);
            }
            incl[l] = pc[l];
        }
        warp_prefix_inclusive_sum(incl);
        const uint32_t total = (uint32_t) incl[W - 1];
        for (int l = 0; l < W; ++l) {
            uint32_t pos = bitcos_cuda_thread_pos(cur[l], 0, incl[l], pc[l]);
            for (int j = 0; j < cnt[l]; ++j) {
                step(l, c0[l] + j, m[l][j], sw[l], pos);
                pos = bitcos_cuda_run_next(pos, m[l][j]);
            }
            cur[l] += total;
        }
    }
}

// The paired geometry's loop (BITCOS_CUDA_MMV_PAIRS; bitcos_cuda.cuh): per pair
// of steps (64 chunks) both presence words of each lane, one warp scan of
// their packed popcounts, the total from lane 31; step(lane, c, m, sw, pos)
// for the lane's chunk of the first step, then of the second.
template <typename Step>
void row_pairs(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, int k, int r, Step step) {
    row_start<W>      rs(bitmap, signs, rows, k, r);
    const int         nchunks = rs.nchunks;
    const uint32_t *  bm      = rs.bm;
    uint32_t *        cur     = rs.cur;
    const uint32_t ** sw      = rs.sw;
    for (int c0 = 0; c0 < nchunks; c0 += 2 * W) {
        uint32_t m0[W], m1[W];
        int      pc0[W], pc1[W], incl[W];
        for (int l = 0; l < W; ++l) {
            m0[l]   = bitcos_cuda_word(bm, c0 + l, nchunks);
            m1[l]   = bitcos_cuda_word(bm, c0 + W + l, nchunks);
            pc0[l]  = __popc(m0[l]);
            pc1[l]  = __popc(m1[l]);
            incl[l] = bitcos_cuda_pair_pack(pc0[l], pc1[l]);
        }
        warp_prefix_inclusive_sum(incl);
        const uint32_t total = (uint32_t) incl[W - 1];
        for (int l = 0; l < W; ++l) {
            const uint32_t pos0 = bitcos_cuda_pair_pos0(cur[l], (uint32_t) incl[l], pc0[l]);
            const uint32_t pos1 = bitcos_cuda_pair_pos1(cur[l], (uint32_t) incl[l], total, pc1[l]);
            if (c0 + l < nchunks) {
                step(l, c0 + l, m0[l], sw[l], pos0);
            }
            if (c0 + W + l < nchunks) {
                step(l, c0 + W + l, m1[l], sw[l], pos1);
            }
            cur[l] = bitcos_cuda_pair_next(cur[l], total);
        }
    }
}

// A column's q8_1 blocks staged as the glue's y variants stage them (every chunk
// through bitcos_cuda_stage_chunk, last chunk first: the threads' order does not
// matter), into a buffer prefilled with 0xA5 bytes; a word left unwritten fails
// the run.
std::vector<int4> stage_column(const block_q8_1 * y, int nchunks) {
    const int         nw = 9 * nchunks;
    std::vector<int4> col((size_t) (nw + 3) / 4);
    std::memset((void *) col.data(), 0xA5, col.size() * sizeof(int4));
    for (int c = nchunks - 1; c >= 0; --c) {
        bitcos_cuda_stage_chunk((uint32_t *) col.data(), nchunks, c, y + c);
    }
    for (int w = 0; w < nw; ++w) {
        uint32_t v;
        std::memcpy(&v, (const uint8_t *) col.data() + 4 * (size_t) w, 4);
        if (v == 0xA5A5A5A5u) {
            die("a staged word was not written (or holds 0xA5A5A5A5)");
        }
    }
    return col;
}

// Row r's fp16 scales (nullptr with one f32 scale): k/32 >> shift of them per row.
const half * row_scales(const half * d16, int shift, int k, int r) {
    return d16 != nullptr ? d16 + (size_t) r * ((k / BITCOS_CUDA_CHUNK) >> shift) : nullptr;
}

// One row's dot product: the threads' sums, lane l of warp 0 adding those of
// lane l of the other warps in order, then the warp's butterfly.
float row_dot(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16, int shift,
              const float * d32, const block_q8_1 * y, int k, int r) {
    constexpr int NW    = BITCOS_CUDA_MMV_SEGMENTS || BITCOS_CUDA_MMV_PAIRS ? 1 : BITCOS_CUDA_MMV_WARPS;
    const half *  d16_r = row_scales(d16, shift, k, r);
    float         sumf[NW * W];
    for (float & s : sumf) {
        s = 0.0f;
    }
    const auto step = [&](int t, int c, uint32_t m, const uint32_t * sw, uint32_t pos) {
        sumf[t] = bitcos_cuda_vec_dot_chunk(sumf[t], bitcos_cuda_table, m, sw, pos, y + c,
                                            bitcos_cuda_scale(d16_r, shift, bitcos_cuda_row_d32(d16_r, d32), c));
    };
    if (BITCOS_CUDA_MMV_PAIRS == 2) {
        row_pairs(bitmap, signs, rows, k, r, step);
    } else if (BITCOS_CUDA_MMV_PAIRS == 1) {
        const int               nchunks = k / BITCOS_CUDA_CHUNK;
        const std::vector<int4> col     = stage_column(y, nchunks);
        constexpr int           copies  = BITCOS_CUDA_TABLE_COPIES;
        std::vector<uint32_t>   tab(256 * copies);  // the table in shared memory as the glue's y variants fill it
        for (int w = 0; w < 256 * copies; ++w) {
            tab[w] = bitcos_cuda_table_copies_word(copies, w);
        }
        row_pairs(bitmap, signs, rows, k, r, [&](int l, int c, uint32_t m, const uint32_t * sw, uint32_t pos) {
            if ((c - l) % 8 != 0) {
                die("a staged chunk read by a lane whose offset from it is not a multiple of 8");
            }
            sumf[l] = bitcos_cuda_vec_dot_chunk_staged<copies>(sumf[l], bitcos_cuda_table_lane(tab.data(), copies, l), m, sw, pos,
                                                       (const uint32_t *) col.data(), nchunks, c, l,
                                                       bitcos_cuda_scale(d16_r, shift, bitcos_cuda_row_d32(d16_r, d32), c));
        });
    } else if (BITCOS_CUDA_MMV_SEGMENTS) {
        row_segments(bitmap, signs, rows, k, r, step);
    } else {
        row_threads<NW>(bitmap, signs, rows, k, r, step);
    }
    for (int l = 0; l < W; ++l) {
        for (int w = 1; w < NW; ++w) {
            sumf[l] = __fadd_rn(sumf[l], sumf[w * W + l]);
        }
    }
    warp_reduce_sum(sumf);
    for (int lane = 1; lane < W; ++lane) {
        if (std::memcmp(&sumf[lane], &sumf[0], 4) != 0) {
            die("lanes disagree after warp_reduce_sum");
        }
    }
    return sumf[0];
}

// One row's BITCOS -> Q2_0 decode: each lane's chunk through
// bitcos_cuda_chunk_to_q2_0 instead of the dot product (d16 null: a per-tensor
// f32 scale, unit-scale blocks).
void row_to_q2_0(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16, int shift,
                 block_q2_0 * dst, int k, int r) {
    const half * d16_r = row_scales(d16, shift, k, r);
    block_q2_0 * dst_r = dst + (size_t) r * (k / QK2_0);
    row_lanes(bitmap, signs, rows, k, r, [&](int, int c, uint32_t m, const uint32_t * sw, uint32_t pos) {
        bitcos_cuda_chunk_to_q2_0(dst_r, bitcos_cuda_table, m, sw, pos, d16_r, shift, c);
    });
}

// One row decoded to floats (GET_ROWS): each lane's chunk through
// bitcos_cuda_chunk_to_float.
void row_to_float(const uint32_t * bitmap, const uint32_t * signs, const int32_t * rows, const half * d16, int shift,
                  const float * d32, float * dst, int k, int r) {
    const half * d16_r = row_scales(d16, shift, k, r);
    row_lanes(bitmap, signs, rows, k, r, [&](int, int c, uint32_t m, const uint32_t * sw, uint32_t pos) {
        bitcos_cuda_chunk_to_float(dst + (size_t) r * k + (size_t) c * BITCOS_CUDA_CHUNK, bitcos_cuda_table, m, sw, pos,
                                   bitcos_cuda_scale(d16_r, shift, bitcos_cuda_row_d32(d16_r, d32), c));
    });
}

// ggml-cuda's quantize_q8_1 (quantize.cu) for one block of 32: lane i holds x[i];
// amax and sum by the warp reductions of width 32; d = amax/127, q = roundf(x/d)
// (0 when amax == 0), ds = make_half2(d, sum).
void quantize_q8_1(const float * x, block_q8_1 * y) {
    float amax[W], sum[W];
    for (int l = 0; l < W; ++l) {
        amax[l] = std::fabs(x[l]);
        sum[l]  = x[l];
    }
    warp_reduce_max(amax);
    warp_reduce_sum(sum);
    for (int l = 0; l < W; ++l) {
        const float d = amax[l] / 127.0f;
        y->qs[l]      = amax[l] == 0.0f ? 0 : (int8_t) std::roundf(x[l] / d);
    }
    y->ds = make_half2(amax[0] / 127.0f, sum[0]);
}

// The BITCOS matrix of a case: k, rows, the harness's count (mid), the kind of
// scales, d32, the sign stream, row index and fp16 scales (kernels/sycl_cases_test.go,
// writeHarnessRows), in guarded buffers.
struct matrix {
    int                  k = 0, rows = 0, mid = 0, per_tensor = 0;
    int                  shift = BITCOS_CUDA_SCALE_SHIFT_256; // of the fp16 scales' grouping
    float                d32 = 0.0f;
    std::vector<int32_t> rowidx;
    std::vector<half>    d16;
    std::unique_ptr<guarded> bitmap, signs;

    explicit matrix(reader & in) {
        k                     = in.get<int32_t>();
        rows                  = in.get<int32_t>();
        mid                   = in.get<int32_t>();
        const int scales      = in.get<int32_t>();
        d32                   = in.get<float>();
        const auto sign_bytes = in.get<uint32_t>();
        if (k <= 0 || k % BITCOS_CUDA_QK != 0 || rows < 0 || mid < 1 || scales < 0 || scales > 2) {
            die("bad case header");
        }
        per_tensor = scales == 1;
        shift      = scales == 2 ? BITCOS_CUDA_SCALE_SHIFT_64 : BITCOS_CUDA_SCALE_SHIFT_256;
        bitmap = std::make_unique<guarded>((size_t) rows * k / 8);
        signs  = std::make_unique<guarded>(sign_bytes);
        in.bytes(bitmap->p, (size_t) rows * k / 8);
        in.bytes(signs->p, sign_bytes);
        rowidx.resize(rows + 1);
        in.bytes(rowidx.data(), rowidx.size() * 4);
        if (!per_tensor) {
            d16.resize((size_t) rows * ((k / BITCOS_CUDA_CHUNK) >> shift));
            in.bytes(d16.data(), d16.size() * 2);
        }
    }

    float dot(int r, const block_q8_1 * y) const {
        return row_dot((const uint32_t *) bitmap->p, (const uint32_t *) signs->p, rowidx.data(),
                       per_tensor ? nullptr : d16.data(), shift, &d32, y, k, r);
    }
};

// "BCCM": one mat-vec launch (MUL_MAT or MUL_MAT_ID) over its whole grid through
// bitcos_cuda.cuh's argument builders and bitcos_cuda_mmv_locate, every warp's row
// as row_dot. IN: the matrix (mid = the q8_1 columns), i32 op (0 MUL_MAT, 1
// MUL_MAT_ID), i64 ne01 ne02 ne03 ne11 ne12 ne13 s1 s2 s3 ids_stride, i32 gy gz
// ncols nids, i32 ids[nids], i64 ndst, block_q8_1 [mid][k/32]. OUT: f32 dst[ndst],
// NaN bits where no warp wrote.
void run_mmv(reader & in, FILE * out) {
    const matrix m(in);
    const int    op = in.get<int32_t>();
    const auto   get = [&] { return in.get<int64_t>(); };
    const int64_t ne01 = get(), ne02 = get(), ne03 = get(), ne11 = get(), ne12 = get(), ne13 = get();
    const int64_t s1 = get(), s2 = get(), s3 = get(), ids_stride = get();
    const int gy = in.get<int32_t>(), gz = in.get<int32_t>(), ncols = in.get<int32_t>(), nids = in.get<int32_t>();
    std::vector<int32_t> ids(nids);
    in.bytes(ids.data(), ids.size() * 4);
    const int64_t ndst = in.get<int64_t>();
    const int64_t sy   = m.k / QK8_1;
    std::vector<block_q8_1> y((size_t) m.mid * sy);
    in.bytes(y.data(), y.size() * sizeof(block_q8_1));

    const bitcos_cuda_mmv_args a = op == 0 ? bitcos_cuda_mmv_args_mul_mat(ne01, ne02, ne03, ne11, ne12, ne13, sy, s1, s2, s3) :
                                             bitcos_cuda_mmv_args_mul_mat_id(ne01, ne02, ne11, sy, ids_stride, s1, s2);
    std::vector<float> dst(ndst);
    std::memset(dst.data(), 0xFF, dst.size() * sizeof(float));
    for (int z = 0; z < gz; ++z) {
        for (int g = 0; g < gy; ++g) {
            for (int r = 0; r < a.nrows; ++r) {
                const bitcos_cuda_mmv_pos p = bitcos_cuda_mmv_locate(a, op == 1 ? ids.data() : nullptr, g, z, r);
                for (int j = 0; j < ncols; ++j) {
                    const int64_t yb = p.y + j * a.stride_col_y, d = p.dst + j * a.stride_col_dst;
                    if (p.row < 0 || p.row >= m.rows || yb < 0 || yb + sy > (int64_t) y.size() || d < 0 || d >= ndst) {
                        die("mat-vec geometry out of range");
                    }
                    dst[d] = m.dot((int) p.row, y.data() + yb);
                }
            }
        }
    }
    put(out, dst.data(), dst.size());
}

void run_case(reader & in, FILE * out) {
    const matrix m(in);
    const int    k = m.k, rows = m.rows, ncols = m.mid;
    const size_t nb = (size_t) k / QK8_1;
    const auto * bitmap = (const uint32_t *) m.bitmap->p;
    const auto * signs  = (const uint32_t *) m.signs->p;
    const half * d16    = m.per_tensor ? nullptr : m.d16.data();

    std::vector<block_q8_1> y((size_t) ncols * nb);
    in.bytes(y.data(), y.size() * sizeof(block_q8_1));
    std::vector<float> x((size_t) ncols * k);
    in.bytes(x.data(), x.size() * 4);

    std::vector<float> dot((size_t) ncols * rows);
    for (int c = 0; c < ncols; ++c) {
        for (int r = 0; r < rows; ++r) {
            dot[(size_t) c * rows + r] = m.dot(r, y.data() + (size_t) c * nb);
        }
    }
    put(out, dot.data(), dot.size());

    std::vector<block_q8_1> yq(y.size());
    std::memset((void *) yq.data(), 0xAA, yq.size() * sizeof(block_q8_1));
    for (size_t b = 0; b < yq.size(); ++b) {
        quantize_q8_1(x.data() + b * QK8_1, &yq[b]);
    }
    put(out, yq.data(), yq.size());

    {  // the Q2_0 decode (unit scales for an f32 scale), into a guarded buffer prefilled with 0xA5
        const size_t nq = (size_t) rows * (k / QK2_0) * sizeof(block_q2_0);
        guarded      q2(nq);
        std::memset(q2.p, 0xA5, nq);
        for (int r = 0; r < rows; ++r) {
            row_to_q2_0(bitmap, signs, m.rowidx.data(), d16, m.shift, (block_q2_0 *) q2.p, k, r);
        }
        put(out, q2.p, nq);
    }

    {  // every case: the float decode, into a guarded buffer prefilled with NaN bits
        const size_t nf = (size_t) rows * k;
        guarded      f(nf * sizeof(float));
        std::memset(f.p, 0xFF, nf * sizeof(float));
        for (int r = 0; r < rows; ++r) {
            row_to_float(bitmap, signs, m.rowidx.data(), d16, m.shift, &m.d32, (float *) f.p, k, r);
        }
        put(out, (const float *) f.p, nf);
    }
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc != 3) {
        die("usage: harness IN.bin OUT.bin");
    }
    FILE * fin  = std::fopen(argv[1], "rb");
    FILE * fout = std::fopen(argv[2], "wb");
    if (!fin || !fout) {
        die("cannot open files");
    }
    reader         in{ fin };
    const uint32_t magic = in.get<uint32_t>();
    if (magic == 0x4d434342u) {  // "BCCM"
        run_mmv(in, fout);
    } else if (magic == 0x55434342u) {  // "BCCU"
        const uint32_t ncases = in.get<uint32_t>();
        put(fout, bitcos_cuda_table, 256);
        for (uint32_t c = 0; c < ncases; ++c) {
            run_case(in, fout);
        }
    } else {
        die("bad magic");
    }
    if (std::fclose(fout) != 0) {
        die("close");
    }
    std::fclose(fin);
    return 0;
}
