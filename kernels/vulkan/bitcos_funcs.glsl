// BITCOS weights in ggml-vulkan (gguf-bitcos, docs/FORMAT.md).
//
// A BITCOS weight is a presence bitmap (bit j%32 of 32-bit word j/32 of its
// row set where weight j is non-zero: the format's LSB-first bytes read as
// little-endian words) and three companion tensors, bound right after the
// op's own buffers, from binding BITCOS_BINDING on:
//   signs   I8 stream: bit k of row r's stream (from byte rows[r]) is the sign
//           of the row's k-th non-zero weight, 1 = negative; 8 zero bytes end it
//   rows    I32 [nrows + 1]: byte offset of each row's stream
//   scales  F16 [ncols/256, nrows] (one per 256 weights of a row), F16
//           [ncols/64, nrows] (one per 64: Q2_0 sources) when the op's flags
//           hold BITCOS_SCALE_G64, or F32 [1] (one per tensor) when they hold
//           BITCOS_SCALE_F32
// Rows are numbered over the whole tensor (experts and batches in order).
// The loader (patch 0003) checks the row index against the bitmap on the host
// before upload; the stream's 8-byte tail keeps every window below inside it.

#define BITCOS_SCALE_F32 0x100u
#define BITCOS_SCALE_G64 0x200u

layout (binding = BITCOS_BINDING + 0) readonly buffer BitcosSigns    {uint      data_bitcos_signs[];};
layout (binding = BITCOS_BINDING + 1) readonly buffer BitcosRows     {int       data_bitcos_rows[];};
layout (binding = BITCOS_BINDING + 2) readonly buffer BitcosScales16 {float16_t data_bitcos_scales16[];};
layout (binding = BITCOS_BINDING + 2) readonly buffer BitcosScales32 {float     data_bitcos_scales32[];};
layout (binding = BITCOS_BINDING + 2) readonly buffer BitcosScalesU {uint16_t  data_bitcos_scales_u16[];}; // the f16 scales' bits

// bit position in the sign stream of the first sign of row grow
uint bitcos_row_start(const uint grow) {
    return uint(data_bitcos_rows[grow]) * 8u;
}

// the 32 sign bits from bit position pos of the stream on: bit k of the
// result is stream bit pos + k (a funnel shift of two words; (hi << 1) << (31 - s)
// keeps both shift counts below 32 when s = 0)
uint bitcos_window(const uint pos) {
    const uint w = pos >> 5;
    const uint s = pos & 31u;
    return (data_bitcos_signs[w] >> s) | ((data_bitcos_signs[w + 1u] << 1) << (31u - s));
}

// the scale of 256-block blk of row grow (nb blocks per row)
float bitcos_scale(const uint grow, const uint blk, const uint nb, const uint flags) {
    return (flags & BITCOS_SCALE_F32) != 0u ? data_bitcos_scales32[0] : float(data_bitcos_scales16[grow * nb + blk]);
}

// the scale of the weights of 32-bit bitmap word wi of row grow (nwords words
// per row), for any grouping: per tensor, per 256 or per 64 weights
float bitcos_word_scale(const uint grow, const uint wi, const uint nwords, const uint flags) {
    if ((flags & BITCOS_SCALE_F32) != 0u) {
        return data_bitcos_scales32[0];
    }
    const uint words_per_scale = (flags & BITCOS_SCALE_G64) != 0u ? 2u : 8u;
    return float(data_bitcos_scales16[(grow * nwords + wi) / words_per_scale]);
}

#ifdef BITCOS_WG
// Lanes along a row (the row decode below, bitcos_to_tq2_0.comp): each of the
// BITCOS_WG invocations takes one 32-bit bitmap word per step; its sign cursor
// is the row's start plus an exclusive scan of the words' popcounts over the
// workgroup (shared memory, so any subgroup size works), carried across steps
// by the step's total.
shared uint bitcos_scan[2][BITCOS_WG];

// exclusive scan of c over the workgroup's lanes in order (Hillis-Steele,
// double-buffered); total = the sum over all lanes. Every lane must call it.
uint bitcos_wg_scan(const uint c, out uint total) {
    const uint tid = gl_LocalInvocationID.x;
    bitcos_scan[0][tid] = c;
    barrier();
    uint src = 0;
    [[unroll]] for (uint off = 1; off < BITCOS_WG; off <<= 1) {
        const uint v = bitcos_scan[src][tid] + (tid >= off ? bitcos_scan[src][tid - off] : 0u);
        bitcos_scan[src ^ 1u][tid] = v;
        barrier();
        src ^= 1u;
    }
    const uint excl = bitcos_scan[src][tid] - c;
    total = bitcos_scan[src][BITCOS_WG - 1];
    barrier(); // all have read before the next scan writes bitcos_scan[0]
    return excl;
}

#ifdef BITCOS_DEPOSIT
// Signs onto bitmap words (the row decodes into TQ2_0 and Q2_0 blocks).
// deposit4[(p << 4) | s]: the low sign bits s, in order, onto the set bits of
// the 4-bit presence p (the negative weights of a nibble)
shared uint bitcos_deposit4[256];

uint deposit4_entry(const uint k) {
    const uint pr = k >> 4;
    uint s = k & 15u;
    uint r = 0u;
    [[unroll]] for (uint b = 0u; b < 4u; ++b) {
        if (((pr >> b) & 1u) != 0u) {
            r |= (s & 1u) << b;
            s >>= 1;
        }
    }
    return r;
}

// fills the table; every lane of the workgroup must call it
void bitcos_deposit_init() {
    [[unroll]] for (uint k = gl_LocalInvocationID.x; k < 256u; k += BITCOS_WG) {
        bitcos_deposit4[k] = deposit4_entry(k);
    }
    barrier();
}

// the negative weights of bitmap word w whose signs start at bit 0 of win
uint bitcos_deposit(uint win, const uint w) {
    uint neg = 0u;
    [[unroll]] for (uint k = 0u; k < 32u; k += 4u) {
        const uint p4 = (w >> k) & 15u;
        neg |= bitcos_deposit4[(p4 << 4) | (win & 15u)] << k;
        win >>= bitCount(p4);
    }
    return neg;
}
#endif

#ifdef BITCOS_DECODE_ROW
// Row decode for GET_ROWS (BITCOS_DECODE_ROW: it needs D_TYPE and data_d): writes the ncols weights of row grow (bitmap words
// from a_word on) as D_TYPE(d * t), t in {-1, 0, +1} (TQ2_0's dequant step),
// to data_d[d_offset + j]
void bitcos_decode_row(const uint grow, const uint a_word, const uint ncols, const uint d_offset, const uint flags) {
    const uint tid = gl_LocalInvocationID.x;
    const uint nwords = ncols / 32u;
    uint cursor = bitcos_row_start(grow);
    for (uint w0 = 0; w0 < nwords; w0 += BITCOS_WG) {
        const uint wi = w0 + tid;
        const uint w = wi < nwords ? data_a[a_word + wi] : 0u;
        uint total;
        const uint excl = bitcos_wg_scan(bitCount(w), total);

        if (wi < nwords) {
            uint win = bitcos_window(cursor + excl);
            const float d = bitcos_word_scale(grow, wi, nwords, flags);
            [[unroll]] for (uint b = 0; b < 32u; ++b) {
                const uint pb = (w >> b) & 1u;
                const float t = pb == 0u ? 0.0 : ((win & 1u) != 0u ? -1.0 : 1.0);
                data_d[d_offset + wi * 32u + b] = D_TYPE(d * t);
                win >>= pb; // the next non-zero weight's sign
            }
        }
        cursor += total;
    }
}
#endif
#endif
