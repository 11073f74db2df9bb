// BITCOS x Q8_1 mat-vec for ggml-cuda (CUDA and HIP), its launch geometry,
// BITCOS -> Q2_0 decode for its batch path and BITCOS -> float for GET_ROWS (at
// the end): __device__ functions, and two host-side builders of the geometry's
// arguments.
//
// ggml-cuda includes this file (after common.cuh: block_q8_1, block_q2_0, half,
// ggml_cuda_dp4a) and carries it byte for byte; kernels/cuda_test.go runs it on
// the CPU through kernels/cuda/harness against the Go reference
// kernels.VecDotQ8_1CUDA and the Go Q2_0 encoder.
// kernels/cuda/README.md argues the design. No threadIdx, blockIdx or shuffles in
// here: the lane and row are the caller's, and so are the warp scan and reductions
// (ggml's own warp_prefix_inclusive_sum and warp_reduce_sum).
//
// Layout (docs/FORMAT.md): row r of K weights (K % 256 == 0) is K/32 presence words
// (weight j = bit j%32 of word j/32), its signs a compacted stream from byte rows[r]
// of the sign tensor, one bit per non-zero weight, 1 = negative; fp16 scales
// d16[r*K/256 + b] per 256-block (TQ2_0 sources), d16[r*K/64 + b] per 64 weights
// (Q2_0 sources), or one f32 per tensor (*d32, d16 == nullptr). The callers pass
// a row's d16 and the grouping as a shift: chunk c's scale is d16_row[c >> shift].
//
// Geometry: NW = BITCOS_CUDA_MMV_WARPS warps of 32 lanes per row, T = 32*NW
// threads; thread t = 32*warp + lane. Chunk c = 32 weights = presence word c =
// q8_1 block c of the column. Thread t takes chunks c = t, t + T, t + 2T, ...
// Per step of T chunks, the thread's sign cursor is the row's cursor plus the
// popcounts of the words before its own in the step: the warp's exclusive
// prefix (ggml's warp scan) plus the totals of the warps before it (through
// shared memory, one __syncthreads per step when NW > 1); the step's total
// carries the row's cursor on. The caller's loop (the kernels/cuda/harness runs
// exactly this; the glue's bitcos_cuda_row_threads is it):
//
//   const int nchunks = K/32;
//   uint32_t cur; const uint32_t * sw = bitcos_cuda_row_signs(signs, rows[r], cur);
//   const float d32v = bitcos_cuda_row_d32(d16_r, d32);  // once per row
//   float sumf = 0.0f;
//   for (int c0 = 0; c0 < nchunks; c0 += T) {
//       const int      c    = c0 + t;
//       const uint32_t m    = bitcos_cuda_word(bitmap + (size_t) r*nchunks, c, nchunks);
//       const int      pc   = __popc(m);
//       const int      incl = warp_prefix_inclusive_sum<int, 32>(pc);
//       // before: sum of the earlier warps' totals (lane 31's incl); total: all NW
//       if (c < nchunks) {
//           sumf = bitcos_cuda_vec_dot_chunk(sumf, bitcos_cuda_table, m, sw,
//                      bitcos_cuda_thread_pos(cur, before, incl, pc), y + c, bitcos_cuda_scale(d16_r, shift, d32v, c));
//       }
//       cur += total;                     // integer: exact, any order
//   }
//   // warp 0, lane l: sumf of thread l, + that of thread 32w + l for w = 1 .. NW-1
//   sumf = warp_reduce_sum<32>(sumf);     // every lane of warp 0 holds the row's dot product
//
// Float order (bit-exact against the Go reference; no contraction can change it,
// -use_fast_math included, as every float op is an explicit _rn intrinsic):
//   per chunk:  sumi = exact int32 sum of t_j * q_j over its 32 weights (dp4a)
//               d    = __fmul_rn(d_w, d_8)       d_w = fp16 scale as float or d32,
//                                                d_8 = __low2float(ds) of the q8_1 block
//                                                (exact for fp16 scales: 11 x 11 bits)
//               sumf = __fadd_rn(sumf, __fmul_rn((float) sumi, d))
//   per thread: sumf from +0.0f over its chunks in increasing c; an idle thread keeps +0
//   per lane:   (NW > 1) lane l of warp 0: __fadd_rn(x, sumf of thread 32w + l) for
//               w = 1, ..., NW-1 in order (mmvq's cross-warp order)
//   per row:    ggml's warp_reduce_sum<32>(float): x += __shfl_xor_sync(x, o) for
//               o = 16, 8, 4, 2, 1 (a + b == b + a, so every lane ends equal).
// The q8_1 sum (ds.y) is not used: a ternary row has no offset.

#pragma once

#include <cstdint>

// c + the dot product of the four signed bytes of a and b (ggml's, for HIP too).
#ifndef BITCOS_CUDA_DP4A
#define BITCOS_CUDA_DP4A(a, b, c) ggml_cuda_dp4a((a), (b), (c))
#endif

// Test hooks only (kernels/cuda_test.go builds with them to prove its comparison
// can fail): MUTATE_CURSOR 1 = the sign window moves by 4 per nibble instead of
// popcount(nibble) (in the mat-vec and both decodes); 2 = a lane starts at its
// inclusive prefix, skipping its own word's signs; 3 = a thread leaves out the
// earlier warps of its step (the mat-vec with more than one warp per row); 4 =
// a lane's cursor stays put along its run (the segmented geometry); 5 = the
// second step of a pair leaves out the first's total (the paired geometry). MUTATE_ORDER 1 = one fused
// fmaf instead of the rounded multiply and add (mat-vec). MUTATE_GEOMETRY 1 = the
// mat-vec's y offset leaves out the grid's z (samples, or tokens). MUTATE_STAGE
// 1 = the staged quants are read without the swizzle they were written with.
// MUTATE_TABLE 1 = a table kept in copies is read with half its stride.
#ifndef BITCOS_CUDA_MUTATE_CURSOR
#define BITCOS_CUDA_MUTATE_CURSOR 0
#endif
#ifndef BITCOS_CUDA_MUTATE_ORDER
#define BITCOS_CUDA_MUTATE_ORDER 0
#endif
#ifndef BITCOS_CUDA_MUTATE_GEOMETRY
#define BITCOS_CUDA_MUTATE_GEOMETRY 0
#endif
#ifndef BITCOS_CUDA_MUTATE_STAGE
#define BITCOS_CUDA_MUTATE_STAGE 0
#endif
#ifndef BITCOS_CUDA_MUTATE_TABLE
#define BITCOS_CUDA_MUTATE_TABLE 0
#endif

// Warps per row of the mat-vec: a thread block of this many warps takes one
// row; with 1, a block of 4 warps takes 4 rows, a warp each. The float order
// depends on it (the cross-warp sum below); the glue's variant build may
// instantiate others, each tested against the Go reference of its order.
// 1: on an H200 (kernels/cuda/microbench, gguf-bitcos docs/BENCHMARKS.md) one
// warp per row was the fastest at every shape measured but 640 x 2560 (4 warps
// 0.87x its time there), 2 and 8 warps and the segmented geometry slower.
#ifndef BITCOS_CUDA_MMV_WARPS
#define BITCOS_CUDA_MMV_WARPS 1
#endif

// 1: the mat-vec's segmented geometry instead (one warp per row, each lane a
// run of consecutive chunks per step; see bitcos_cuda_segment). The harness
// builds either; the glue's variant build has both.
#ifndef BITCOS_CUDA_MMV_SEGMENTS
#define BITCOS_CUDA_MMV_SEGMENTS 0
#endif

// 1: the harness runs the paired geometry (bitcos_cuda_pair_pack below) on
// activations staged as in shared memory (the glue's y variants); 2: on the
// q8_1 blocks themselves (the p variant).
#ifndef BITCOS_CUDA_MMV_PAIRS
#define BITCOS_CUDA_MMV_PAIRS 0
#endif

// The harness's paired geometry reads the nibble table in this many
// interleaved copies (bitcos_cuda_table_copies_word; 1, 16 or 32).
#ifndef BITCOS_CUDA_TABLE_COPIES
#define BITCOS_CUDA_TABLE_COPIES 1
#endif

#define BITCOS_CUDA_SEG   8    // segmented geometry: at most this many chunks per lane and step
#define BITCOS_CUDA_QK    256  // weights per scale block
#define BITCOS_CUDA_CHUNK 32   // weights per lane step: one presence word, one block_q8_1
#define BITCOS_CUDA_LANES 32   // lanes per row

// Entry key = p | s << 4: the four weights of presence nibble p whose present
// weights take the signs s in order (bit k of s: k-th present weight, 1 =
// negative), weight i in byte i as int8 -1, 0 or +1; sign bits past popcount(p)
// do not matter. 1 KiB, indexed per lane like ggml's iq grids; a caller may copy
// it to shared memory and pass that instead (same bits).
static const __device__ uint32_t bitcos_cuda_table[256] = {
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00010101,
    0x01000000, 0x01000001, 0x01000100, 0x01000101, 0x01010000, 0x01010001, 0x01010100, 0x01010101,
    0x00000000, 0x000000ff, 0x0000ff00, 0x000001ff, 0x00ff0000, 0x000100ff, 0x0001ff00, 0x000101ff,
    0xff000000, 0x010000ff, 0x0100ff00, 0x010001ff, 0x01ff0000, 0x010100ff, 0x0101ff00, 0x010101ff,
    0x00000000, 0x00000001, 0x00000100, 0x0000ff01, 0x00010000, 0x00ff0001, 0x00ff0100, 0x0001ff01,
    0x01000000, 0xff000001, 0xff000100, 0x0100ff01, 0xff010000, 0x01ff0001, 0x01ff0100, 0x0101ff01,
    0x00000000, 0x000000ff, 0x0000ff00, 0x0000ffff, 0x00ff0000, 0x00ff00ff, 0x00ffff00, 0x0001ffff,
    0xff000000, 0xff0000ff, 0xff00ff00, 0x0100ffff, 0xffff0000, 0x01ff00ff, 0x01ffff00, 0x0101ffff,
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00ff0101,
    0x01000000, 0x01000001, 0x01000100, 0xff000101, 0x01010000, 0xff010001, 0xff010100, 0x01ff0101,
    0x00000000, 0x000000ff, 0x0000ff00, 0x000001ff, 0x00ff0000, 0x000100ff, 0x0001ff00, 0x00ff01ff,
    0xff000000, 0x010000ff, 0x0100ff00, 0xff0001ff, 0x01ff0000, 0xff0100ff, 0xff01ff00, 0x01ff01ff,
    0x00000000, 0x00000001, 0x00000100, 0x0000ff01, 0x00010000, 0x00ff0001, 0x00ff0100, 0x00ffff01,
    0x01000000, 0xff000001, 0xff000100, 0xff00ff01, 0xff010000, 0xffff0001, 0xffff0100, 0x01ffff01,
    0x00000000, 0x000000ff, 0x0000ff00, 0x0000ffff, 0x00ff0000, 0x00ff00ff, 0x00ffff00, 0x00ffffff,
    0xff000000, 0xff0000ff, 0xff00ff00, 0xff00ffff, 0xffff0000, 0xffff00ff, 0xffffff00, 0x01ffffff,
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00010101,
    0x01000000, 0x01000001, 0x01000100, 0x01000101, 0x01010000, 0x01010001, 0x01010100, 0xff010101,
    0x00000000, 0x000000ff, 0x0000ff00, 0x000001ff, 0x00ff0000, 0x000100ff, 0x0001ff00, 0x000101ff,
    0xff000000, 0x010000ff, 0x0100ff00, 0x010001ff, 0x01ff0000, 0x010100ff, 0x0101ff00, 0xff0101ff,
    0x00000000, 0x00000001, 0x00000100, 0x0000ff01, 0x00010000, 0x00ff0001, 0x00ff0100, 0x0001ff01,
    0x01000000, 0xff000001, 0xff000100, 0x0100ff01, 0xff010000, 0x01ff0001, 0x01ff0100, 0xff01ff01,
    0x00000000, 0x000000ff, 0x0000ff00, 0x0000ffff, 0x00ff0000, 0x00ff00ff, 0x00ffff00, 0x0001ffff,
    0xff000000, 0xff0000ff, 0xff00ff00, 0x0100ffff, 0xffff0000, 0x01ff00ff, 0x01ffff00, 0xff01ffff,
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00ff0101,
    0x01000000, 0x01000001, 0x01000100, 0xff000101, 0x01010000, 0xff010001, 0xff010100, 0xffff0101,
    0x00000000, 0x000000ff, 0x0000ff00, 0x000001ff, 0x00ff0000, 0x000100ff, 0x0001ff00, 0x00ff01ff,
    0xff000000, 0x010000ff, 0x0100ff00, 0xff0001ff, 0x01ff0000, 0xff0100ff, 0xff01ff00, 0xffff01ff,
    0x00000000, 0x00000001, 0x00000100, 0x0000ff01, 0x00010000, 0x00ff0001, 0x00ff0100, 0x00ffff01,
    0x01000000, 0xff000001, 0xff000100, 0xff00ff01, 0xff010000, 0xffff0001, 0xffff0100, 0xffffff01,
    0x00000000, 0x000000ff, 0x0000ff00, 0x0000ffff, 0x00ff0000, 0x00ff00ff, 0x00ffff00, 0x00ffffff,
    0xff000000, 0xff0000ff, 0xff00ff00, 0xff00ffff, 0xffff0000, 0xffff00ff, 0xffffff00, 0xffffffff,
};

// Presence word c of a row (bitmap_row: the row's K/32 words); 0 past the row's
// end, so an idle lane adds no popcount to the scan.
static __device__ __forceinline__ uint32_t bitcos_cuda_word(const uint32_t * bitmap_row, const int c, const int nchunks) {
    return c < nchunks ? bitmap_row[c] : 0u;
}

// The row's signs as the 32-bit words from its first aligned word (the sign
// tensor's data is 4-byte aligned) and bit0, the bit of them holding its first
// sign. Cursors are relative to that word: a row holds < 2^31 sign bits, while
// absolute bit offsets of a 2^31-byte tensor would not fit 32 bits.
static __device__ __forceinline__ const uint32_t * bitcos_cuda_row_signs(const uint32_t * signs, const int32_t row_start,
                                                                         uint32_t & bit0) {
    bit0 = ((uint32_t) row_start & 3u) * 8u;
    return signs + ((uint32_t) row_start >> 2);
}

// A lane's cursor: the step's cursor plus the popcounts of the lanes before it
// (incl: the inclusive prefix of pc over the lanes, pc: the lane's own popcount).
static __device__ __forceinline__ uint32_t bitcos_cuda_lane_pos(const uint32_t cur, const int incl, const int pc) {
#if BITCOS_CUDA_MUTATE_CURSOR == 2
    (void) pc;
    return cur + (uint32_t) incl;
#else
    return cur + (uint32_t) (incl - pc);
#endif
}

// A thread's cursor with NW warps per row: before = the popcounts of the step's
// earlier warps (the sum of their lane 31's incl).
static __device__ __forceinline__ uint32_t bitcos_cuda_thread_pos(const uint32_t cur, const uint32_t before, const int incl,
                                                                  const int pc) {
#if BITCOS_CUDA_MUTATE_CURSOR == 3
    (void) before;
    return bitcos_cuda_lane_pos(cur, incl, pc);
#else
    return bitcos_cuda_lane_pos(cur + before, incl, pc);
#endif
}

// The segmented geometry (BITCOS_CUDA_MMV_SEGMENTS): one warp per row, the row
// in steps of up to 32*BITCOS_CUDA_SEG chunks; in a step of n chunks from s0,
// lane l takes the consecutive chunks [s0 + l*n/32, s0 + (l+1)*n/32) (at most
// BITCOS_CUDA_SEG, maybe none). The lane loads its presence words, the warp scans
// their popcount sums once per step, and the lane walks its run with its own
// cursor, chunk after chunk: no barrier, and every load of a step is issued up
// front. Float order: per lane its chunks in increasing c (its run in each
// step, steps in order), from +0; then the butterfly. The caller's loop:
//
//   for (int s0 = 0; s0 < nchunks; s0 += 32*BITCOS_CUDA_SEG) {
//       int c, cnt; bitcos_cuda_segment(lane, min(32*BITCOS_CUDA_SEG, nchunks - s0), c, cnt); c += s0;
//       uint32_t m[BITCOS_CUDA_SEG]; int pc = 0;
//       for (j < BITCOS_CUDA_SEG) { m[j] = j < cnt ? bitmap_row[c + j] : 0; pc += __popc(m[j]); }
//       const int incl = warp_prefix_inclusive_sum<int, 32>(pc);
//       uint32_t pos = bitcos_cuda_thread_pos(cur, 0, incl, pc);
//       for (j < cnt) { sumf = bitcos_cuda_vec_dot_chunk(sumf, table, m[j], sw, pos, y + c + j, scale(c + j));
//                       pos = bitcos_cuda_run_next(pos, m[j]); }
//       cur += lane 31's incl;
//   }
//   sumf = warp_reduce_sum<32>(sumf);
static __device__ __forceinline__ void bitcos_cuda_segment(const int lane, const int n, int & c0, int & cnt) {
    c0  = lane * n / BITCOS_CUDA_LANES;
    cnt = (lane + 1) * n / BITCOS_CUDA_LANES - c0;
}

// A lane's cursor past chunk m of its run.
static __device__ __forceinline__ uint32_t bitcos_cuda_run_next(const uint32_t pos, const uint32_t m) {
#if BITCOS_CUDA_MUTATE_CURSOR == 4
    (void) m;
    return pos;
#else
    return pos + (uint32_t) __popc(m);
#endif
}

// The grouping of fp16 scales as a shift of the chunk index: chunks per scale.
#define BITCOS_CUDA_SCALE_SHIFT_256 3 // one scale per 256 weights (8 chunks): TQ2_0 sources
#define BITCOS_CUDA_SCALE_SHIFT_64  1 // one scale per 64 weights (2 chunks): Q2_0 sources

// The per-tensor f32 scale of a row's weight, read once per row (d32 is a
// device pointer: no host read of the scale tensor), or 0 with fp16 scales.
static __device__ __forceinline__ float bitcos_cuda_row_d32(const half * d16_row, const float * d32) {
    return d16_row != nullptr ? 0.0f : *d32;
}

// The scale of chunk c of the row: fp16 d16_row[c >> shift], or the per-tensor
// d32v (bitcos_cuda_row_d32) when d16_row is null.
static __device__ __forceinline__ float bitcos_cuda_scale(const half * d16_row, const int shift, const float d32v,
                                                          const int c) {
    return d16_row != nullptr ? __half2float(d16_row[c >> shift]) : d32v;
}

// 32 sign bits from bit pos of sw. Reads the two aligned words holding bits
// [pos, pos + 32): at most 7 bytes past the byte of bit pos, which the 8-byte
// tail of the sign tensor covers for any cursor up to a row's end.
static __device__ __forceinline__ uint32_t bitcos_cuda_signs32(const uint32_t * sw, const uint32_t pos) {
    const uint32_t * p = sw + (pos >> 5);
    return (uint32_t) (((uint64_t) p[1] << 32 | p[0]) >> (pos & 31u));
}

// The exact int32 sum of t_j * q_j over a chunk's 32 weights: presence word m,
// its signs from bit pos of sw, the chunk's 32 quants as 8 ints q (4 each).
// Per nibble g of m: the table entry of (nibble, its next 4 signs), one dp4a,
// then the signs move on by the nibble's popcount. Written for few
// instructions (kernels/cuda/microbench/sass.sh counts them): x = nibble * 4 comes
// from one shift and mask of m, and each half of the chunk (16 weights, at
// most 16 signs) has its own window, shifted left by 6, so that the entry's
// byte offset (nibble | signs << 4) * 4 is one LOP3 of x and the window, and
// the window moves by popcount(x) = popcount(nibble). The halves' windows
// come from the same two aligned words (bits pos .. pos + 47 at most).
// copies > 1: table is a lane's view of a table kept in that many interleaved
// copies (bitcos_cuda_table_copies_word), entry e at word copies*e of it.
template <int copies = 1>
static __device__ __forceinline__ int bitcos_cuda_chunk_sumi(const uint32_t * table, const uint32_t m, const uint32_t * sw,
                                                            const uint32_t pos, const int * q) {
    static_assert(copies == 1 || copies == 16 || copies == 32, "the nibble table: 1, 16 or 32 copies");
    // the entry's byte offset in the copies, (nibble | signs << 4) * 4 * copies,
    // comes out of one LOP3: the nibble and the window are pre-shifted by k more
    constexpr int    k    = copies == 32 ? 5 : copies == 16 ? 4 : 0;
    const uint32_t * p    = sw + (pos >> 5);
    const uint64_t   w64  = (uint64_t) p[1] << 32 | p[0];
    const uint32_t   sh   = pos & 31u;
    uint32_t         win[2] = { (uint32_t) (w64 >> sh) << (6 + k),
                                (uint32_t) (w64 >> (sh + (uint32_t) __popc(m & 0xffffu))) << (6 + k) };
    int              sumi = 0;
#pragma unroll
    for (int g = 0; g < BITCOS_CUDA_CHUNK / 4; ++g) {
        const uint32_t x   = (4 * g < 2 + k ? m << (2 + k - 4 * g) : m >> (4 * g - 2 - k)) & (0x3cu << k);  // nibble * 4 << k
        const uint32_t off = x | (win[g >> 2] & (0x3c0u << k));                                        // entry * 4 << k
#if BITCOS_CUDA_MUTATE_TABLE == 1
        sumi = BITCOS_CUDA_DP4A(*(const int *) ((const char *) table + (copies > 1 ? off / 2 : off)), q[g], sumi);
#else
        sumi = BITCOS_CUDA_DP4A(*(const int *) ((const char *) table + off), q[g], sumi);
#endif
#if BITCOS_CUDA_MUTATE_CURSOR == 1
        win[g >> 2] >>= 4;
#else
        win[g >> 2] >>= __popc(x);
#endif
    }
    return sumi;
}

// sumf plus a chunk's term in the order above: d_w the weight's scale, d_8 the
// q8_1 block's (as float).
static __device__ __forceinline__ float bitcos_cuda_chunk_acc(const float sumf, const int sumi, const float d_w,
                                                             const float d_8) {
    const float d = __fmul_rn(d_w, d_8);
#if BITCOS_CUDA_MUTATE_ORDER == 1
    return fmaf(__int2float_rn(sumi), d, sumf);
#else
    return __fadd_rn(sumf, __fmul_rn(__int2float_rn(sumi), d));
#endif
}

// One lane step: chunk of presence word m, its signs from bit pos of sw, against
// q8_1 block yc, scale d_w. Returns sumf plus the chunk's term in the order above.
template <int copies = 1>
static __device__ __forceinline__ float bitcos_cuda_vec_dot_chunk(const float sumf, const uint32_t * table, const uint32_t m,
                                                                  const uint32_t * sw, const uint32_t pos,
                                                                  const block_q8_1 * yc, const float d_w) {
    const int * q = (const int *) yc->qs;  // 4-byte aligned: qs sits at offset 4 of 36
    return bitcos_cuda_chunk_acc(sumf, bitcos_cuda_chunk_sumi<copies>(table, m, sw, pos, q), d_w, __low2float(yc->ds));
}

// The paired geometry (BITCOS_CUDA_MMV_PAIRS; the glue's y variants): one warp
// per row and lane l's chunks l, l + 32, l + 64, ... as with one warp, so the
// float order is the one-warp order above; but the steps go in pairs (chunks
// c0 .. c0 + 63) under one warp scan: lane l packs the popcounts of its two
// words as pc0 | pc1 << 16 (a step's prefix is at most 32*32 = 1024, so the
// halves never carry into each other), and with the inclusive prefix incl of
// the packed values and the warp's total (lane 31's incl) its cursors are
//   pos0 = cur + (incl & 0xffff) - pc0
//   pos1 = cur + (total & 0xffff) + (incl >> 16) - pc1
// and the row's cursor moves on by both halves of total. Half the scans of
// the one-warp loop and both steps' sign loads issued together. The caller's
// loop:
//
//   for (int c0 = 0; c0 < nchunks; c0 += 64) {
//       const uint32_t m0 = bitcos_cuda_word(bm, c0 + lane, nchunks), m1 = bitcos_cuda_word(bm, c0 + 32 + lane, nchunks);
//       const int pc0 = __popc(m0), pc1 = __popc(m1);
//       const uint32_t incl  = warp_prefix_inclusive_sum<int, 32>(bitcos_cuda_pair_pack(pc0, pc1));
//       const uint32_t total = __shfl_sync(0xffffffff, incl, 31, 32);
//       if (c0 + lane < nchunks)      step(c0 + lane,      m0, sw, bitcos_cuda_pair_pos0(cur, incl, pc0));
//       if (c0 + 32 + lane < nchunks) step(c0 + 32 + lane, m1, sw, bitcos_cuda_pair_pos1(cur, incl, total, pc1));
//       cur = bitcos_cuda_pair_next(cur, total);
//   }
static __device__ __forceinline__ int bitcos_cuda_pair_pack(const int pc0, const int pc1) {
    return pc0 | pc1 << 16;
}

static __device__ __forceinline__ uint32_t bitcos_cuda_pair_pos0(const uint32_t cur, const uint32_t incl, const int pc0) {
    return cur + (incl & 0xffffu) - (uint32_t) pc0;
}

static __device__ __forceinline__ uint32_t bitcos_cuda_pair_pos1(const uint32_t cur, const uint32_t incl, const uint32_t total,
                                                                 const int pc1) {
#if BITCOS_CUDA_MUTATE_CURSOR == 5
    (void) total;
    return cur + (incl >> 16) - (uint32_t) pc1;
#else
    return cur + (total & 0xffffu) + (incl >> 16) - (uint32_t) pc1;
#endif
}

static __device__ __forceinline__ uint32_t bitcos_cuda_pair_next(const uint32_t cur, const uint32_t total) {
    return cur + (total & 0xffffu) + (total >> 16);
}

// Staged activations (the glue's y variants): a thread block copies the q8_1
// columns it multiplies into shared memory once (a thread per chunk), then its warps read each
// chunk's quants as two 16-byte loads and its scale as one float. ggml's
// block_q8_1 is 36 bytes, so a lane reading its chunk's 8 ints from global
// memory issues 9 loads whose 32 lanes touch 9-10 cache lines each; here 3,
// and free of bank conflicts. Per column of nchunks blocks, 9*nchunks 32-bit
// words: the quants of chunk c as two 16-byte halves h = 0, 1 at int4 slot
// 2c + (h ^ ((c >> 2) & 1)) (the swizzle: the 8 lanes of a quarter warp, chunks
// c .. c+7 of one step, read half h from 8 distinct 4-bank groups), then the
// scales, word 8*nchunks + c = __low2float(ds) of block c (exact: fp16 to f32).
// The float order is unchanged: the same quants and d_8 as the global read.
static __device__ __forceinline__ int bitcos_cuda_staged_slot(const int c, const int h) {
    return 2 * c + (h ^ ((c >> 2) & 1));
}

// Chunk c of a column (its q8_1 block yc) to its staged place in col (32-bit
// words, 16-byte aligned): a thread per chunk, no division.
static __device__ __forceinline__ void bitcos_cuda_stage_chunk(uint32_t * col, const int nchunks, const int c,
                                                               const block_q8_1 * yc) {
    const int * q = (const int *) yc->qs;
    const int4  lo = { q[0], q[1], q[2], q[3] };
    const int4  hi = { q[4], q[5], q[6], q[7] };
    ((int4 *) col)[bitcos_cuda_staged_slot(c, 0)] = lo;
    ((int4 *) col)[bitcos_cuda_staged_slot(c, 1)] = hi;
    const float d8 = __low2float(yc->ds);
    memcpy(col + 8 * nchunks + c, &d8, sizeof(d8));
}

// bitcos_cuda_vec_dot_chunk on staged column col (chunk c's quants and scale),
// lane l's chunk c of a step: c - l a multiple of 8, so slot(c, h) is
// 2*(c - l) + slot(l, h) and a caller's loop keeps slot(l, h) in a register.
template <int copies = 1>
static __device__ __forceinline__ float bitcos_cuda_vec_dot_chunk_staged(const float sumf, const uint32_t * table,
                                                                         const uint32_t m, const uint32_t * sw,
                                                                         const uint32_t pos, const uint32_t * col,
                                                                         const int nchunks, const int c, const int l,
                                                                         const float d_w) {
#if BITCOS_CUDA_MUTATE_STAGE == 1
    (void) l;
    const int4 lo = ((const int4 *) col)[2 * c];
    const int4 hi = ((const int4 *) col)[2 * c + 1];
#else
    const int4 lo = ((const int4 *) col)[2 * (c - l) + bitcos_cuda_staged_slot(l, 0)];
    const int4 hi = ((const int4 *) col)[2 * (c - l) + bitcos_cuda_staged_slot(l, 1)];
#endif
    const int  q[8] = { lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w };
    float      d_8;
    memcpy(&d_8, col + 8 * nchunks + c, sizeof(d_8));
    return bitcos_cuda_chunk_acc(sumf, bitcos_cuda_chunk_sumi<copies>(table, m, sw, pos, q), d_w, d_8);
}

// The nibble table in shared memory in `copies` interleaved copies (16 or 32:
// the glue's h and r variants): entry e of copy k at word copies*e + k, lane
// l reading copy l % copies, so a warp's lookups meet in a bank only when two
// lanes of one copy-class ask for entries of one parity (16) or never (32).
// The lanes index the table at random; one copy costs a warp several
// wavefronts per lookup on bank conflicts. Word w (0 <= w < 256*copies) of the
// copies (copies 1: the table itself).
static __device__ __forceinline__ uint32_t bitcos_cuda_table_copies_word(const int copies, const int w) {
    return bitcos_cuda_table[w / copies];
}

// A lane's view of the copies (its copy's entry 0).
static __device__ __forceinline__ const uint32_t * bitcos_cuda_table_lane(const uint32_t * copies_base, const int copies,
                                                                          const int lane) {
    return copies_base + lane % copies;
}

// Where a mat-vec warp's work lies. The glue launches blocks of warps, one weight
// row r per warp, over a grid whose y and z are (MUL_MAT) src1's channels and
// samples, broadcast over a 3-D weight's by the ratios as ggml defines (weight
// channel = channel / channel_ratio), or (MUL_MAT_ID) the expert slots and the
// tokens, slot s of token t taking expert ids[s + t*ids_stride] and src1 row
// s % nchannels_y. Strides count block_q8_1 for y (the quantized src1, packed by
// ggml's quantize_row_q8_1_cuda: column, then channel, then sample) and floats
// for dst; column j of a launch is at y + j*stride_col_y, dst + j*stride_col_dst.
// The companions index rows of all the weight's matrices: row = (sample_x *
// nchannels_x + channel_x) * nrows + r. kernels/cuda_test.go runs both builders
// and bitcos_cuda_mmv_locate against ggml's MUL_MAT / MUL_MAT_ID semantics.
struct bitcos_cuda_mmv_args {
    int     nrows;          // rows per weight matrix (ne01)
    int     nchannels_x;    // weight matrices per sample (ne02)
    int     channel_ratio;  // MUL_MAT: ne12 / ne02
    int     sample_ratio;   // MUL_MAT: ne13 / ne03
    int     nchannels_y;    // MUL_MAT_ID: src1 rows per token (1, or one per slot)
    int64_t ids_stride;     // MUL_MAT_ID: ids->nb[1] / 4
    int64_t stride_col_y, stride_channel_y, stride_sample_y;
    int64_t stride_col_dst, stride_channel_dst, stride_sample_dst;
};

// MUL_MAT: weight [K, ne01, ne02, ne03], src1 [K, ne11, ne12, ne13] quantized with
// sy q8_1 blocks per column, dst strides s1, s2, s3 in floats; grid y = ne12, z = ne13.
static inline bitcos_cuda_mmv_args bitcos_cuda_mmv_args_mul_mat(const int64_t ne01, const int64_t ne02,
                                                                const int64_t ne03, const int64_t ne11,
                                                                const int64_t ne12, const int64_t ne13,
                                                                const int64_t sy, const int64_t s1,
                                                                const int64_t s2, const int64_t s3) {
    bitcos_cuda_mmv_args a = {};
    a.nrows                = (int) ne01;
    a.nchannels_x          = (int) ne02;
    a.channel_ratio        = (int) (ne12 / ne02);
    a.sample_ratio         = (int) (ne13 / ne03);
    a.stride_col_y         = sy;
    a.stride_channel_y     = ne11 * sy;
    a.stride_sample_y      = ne12 * ne11 * sy;
    a.stride_col_dst       = s1;
    a.stride_channel_dst   = s2;
    a.stride_sample_dst    = s3;
    return a;
}

// MUL_MAT_ID: experts [K, ne01, ne02], src1 [K, ne11, ne12 tokens] quantized with sy
// blocks per row, ids [slots, tokens] with ids_stride, dst [ne01, slots, tokens]
// with strides s1, s2 in floats; grid y = slots, z = tokens, one column per launch.
static inline bitcos_cuda_mmv_args bitcos_cuda_mmv_args_mul_mat_id(const int64_t ne01, const int64_t ne02,
                                                                   const int64_t ne11, const int64_t sy,
                                                                   const int64_t ids_stride, const int64_t s1,
                                                                   const int64_t s2) {
    bitcos_cuda_mmv_args a = {};
    a.nrows                = (int) ne01;
    a.nchannels_x          = (int) ne02;
    a.nchannels_y          = (int) ne11;
    a.ids_stride           = ids_stride;
    a.stride_channel_y     = sy;
    a.stride_sample_y      = ne11 * sy;
    a.stride_channel_dst   = s1;
    a.stride_sample_dst    = s2;
    return a;
}

struct bitcos_cuda_mmv_pos {
    int64_t row;  // the weight row, over all matrices (the companions' index)
    int64_t y;    // the q8_1 block of column 0's chunk 0
    int64_t dst;  // the float of column 0
};

// Row r of grid position (gy, gz); ids: MUL_MAT_ID's (device memory), else nullptr.
static __device__ __forceinline__ bitcos_cuda_mmv_pos bitcos_cuda_mmv_locate(const bitcos_cuda_mmv_args & a,
                                                                            const int32_t * ids, const int64_t gy,
                                                                            const int64_t gz, const int r) {
    const int64_t channel_x = ids ? (int64_t) ids[gy + gz * a.ids_stride] : gy / a.channel_ratio;
    const int64_t channel_y = ids ? gy % a.nchannels_y : gy;
    const int64_t sample_x  = ids ? 0 : gz / a.sample_ratio;
#if BITCOS_CUDA_MUTATE_GEOMETRY == 1
    const int64_t y = channel_y * a.stride_channel_y;
#else
    const int64_t y = channel_y * a.stride_channel_y + gz * a.stride_sample_y;
#endif
    return { (sample_x * a.nchannels_x + channel_x) * a.nrows + r, y,
             gy * a.stride_channel_dst + gz * a.stride_sample_dst + r };
}

// BITCOS -> Q2_0 (ggml type 42) for ggml-cuda's batch path: the glue decodes a
// weight into Q2_0 blocks in a scratch buffer and runs Q2_0's own kernels on it.
// block_q2_0 (ggml-common.h): {half d; uint8_t qs[16]}, 64 weights, weight j of a
// block in bits 2*(j%4) of qs[j/4] as the code t + 1 (0 = -1, 1 = 0, 2 = +1). One
// lane per chunk c, in the mat-vec's geometry and with its sign cursor (the same
// loop as above with this call in place of bitcos_cuda_vec_dot_chunk, no float
// reduction): it writes the chunk's 8 bytes qs[8*(c%2) .. 8*(c%2)+7] of block c/2
// of dst_row (the row's K/64 blocks), and the lane with c even the block's d:
// bitcos_cuda_q2_0_scale, the fp16 scale of the chunk d16_row[c >> shift] with its
// bits unchanged (per 64 weights: the Q2_0 source's own; per 256: the four blocks
// of a 256-block share it), or 1.0 for a per-tensor f32 scale, which has no exact
// Q2_0 form: the glue then applies the f32 scale to the product (unit-scale
// blocks). Every byte of dst_row is written once; no float op.
static __device__ __forceinline__ half bitcos_cuda_q2_0_scale(const half * d16_row, const int shift, const int c) {
    return d16_row != nullptr ? d16_row[c >> shift] : __float2half(1.0f);
}

static __device__ __forceinline__ void bitcos_cuda_chunk_to_q2_0(block_q2_0 * dst_row, const uint32_t * table,
                                                                 const uint32_t m, const uint32_t * sw,
                                                                 const uint32_t pos, const half * d16_row,
                                                                 const int shift, const int c) {
    block_q2_0 * b   = dst_row + c / 2;
    uint8_t *    qs  = b->qs + 8 * (c & 1);
    uint32_t     win = bitcos_cuda_signs32(sw, pos);
#pragma unroll
    for (int g = 0; g < BITCOS_CUDA_CHUNK / 4; ++g) {
        const uint32_t nib = (m >> (4 * g)) & 15u;
        const uint32_t t   = table[nib | (win & 15u) << 4];   // bytes 0x00, 0x01 or 0xff
        const uint32_t x   = t & 0x01010101u;                 // 1 in the bytes of present weights
        const uint32_t n   = (t >> 1) & 0x01010101u;          // 1 in the bytes of negative ones
        const uint32_t q   = (~x & 0x01010101u) | (x & ~n) << 1;  // code t + 1 in bits 0-1 of each byte
        qs[g]              = (uint8_t) (q | q >> 6 | q >> 12 | q >> 18);
#if BITCOS_CUDA_MUTATE_CURSOR == 1
        win >>= 4;
#else
        win >>= __popc(nib);
#endif
    }
    if ((c & 1) == 0) {
        b->d = bitcos_cuda_q2_0_scale(d16_row, shift, c);
    }
}

// BITCOS -> float for GET_ROWS (a ternary token embedding): the 32 weights of a
// lane's chunk, in the mat-vec's geometry and with its sign cursor (the loop above
// with this call, no reduction), as dst32[i] = __fmul_rn((float) t_i, d_w), d_w as
// for the mat-vec (bitcos_cuda_scale). One rounded multiply per weight: the value
// of ggml's dequantize_row_tq2_0 and of the CPU's BITCOS GET_ROWS, -0 for a zero
// weight under a negative scale included.
static __device__ __forceinline__ void bitcos_cuda_chunk_to_float(float * dst32, const uint32_t * table, const uint32_t m,
                                                                  const uint32_t * sw, const uint32_t pos,
                                                                  const float d_w) {
    uint32_t win = bitcos_cuda_signs32(sw, pos);
#pragma unroll
    for (int g = 0; g < BITCOS_CUDA_CHUNK / 4; ++g) {
        const uint32_t nib = (m >> (4 * g)) & 15u;
        const uint32_t t   = table[nib | (win & 15u) << 4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            dst32[4 * g + i] = __fmul_rn((float) (int8_t) (t >> (8 * i)), d_w);
        }
#if BITCOS_CUDA_MUTATE_CURSOR == 1
        win >>= 4;
#else
        win >>= __popc(nib);
#endif
    }
}
