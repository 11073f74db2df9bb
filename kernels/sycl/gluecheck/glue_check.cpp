// Runs patch 0008's glue (ggml-sycl/bitcos.cpp, taken from the patch by
// kernels/sycl_glue_test.go) under SimSYCL, with common.hpp standing in for
// ggml-sycl's: BITCOS tensors with companions in a ggml context, linked
// (ggml_bitcos_link) so that the ops carry them in their source slots, F16
// scales per 256, per-tensor F32 scales and F16 scales per 64 (Q2_0 sources:
// the decodes only, the GEMV paths decline them); every entry point of the
// glue (GEMV with strided src1/dst views, the decode of a 3-D weight,
// GET_ROWS of it, MUL_MAT_ID with and without a broadcast src1) against a
// straightforward decode. Exit status 0 when everything matches. Test aid:
// not in the patch.
#include "bitcos.hpp"
#include "ggml-bitcos.h"
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

static ggml_backend_buffer fake_buffer;  // the glue compares buffer types only

struct bitcos_w {
    ggml_tensor *bm, *signs, *rows, *scales;
    std::vector<int8_t> t;  // decoded weights, row-major
    std::vector<float>  d;  // per-row per-block scale as float
    int group = 256;        // weights per F16 scale (or per-tensor F32)
};

static void make(ggml_context * ctx, bitcos_w & w, int k, int nr, int ne2, bool f16, std::mt19937 & rng, int group = 256) {
    const int rows = nr * ne2;
    w.t.resize((size_t) rows * k);
    std::vector<uint8_t> bitmap((size_t) rows * k / 8), signs;
    std::vector<int32_t> idx(rows + 1);
    for (int r = 0; r < rows; ++r) {
        idx[r] = (int32_t) signs.size();
        const double z = (r % 7) / 7.0 * 0.6 + (r % 5 == 4 ? 1.0 : 0.0);
        std::vector<int> sb;
        for (int j = 0; j < k; ++j) {
            const double u = std::uniform_real_distribution<double>(0, 1)(rng);
            int8_t v = 0;
            if (u >= z) v = (rng() & 1) ? -1 : 1;
            w.t[(size_t) r * k + j] = v;
            if (v) { bitmap[((size_t) r * k + j) / 8] |= 1 << (j % 8); sb.push_back(v < 0); }
        }
        for (size_t i = 0; i < sb.size(); i += 8) {
            uint8_t b = 0;
            for (size_t q = 0; q < 8 && i + q < sb.size(); ++q) b |= sb[i + q] << q;
            signs.push_back(b);
        }
    }
    idx[rows] = (int32_t) signs.size();
    for (int i = 0; i < 8; ++i) signs.push_back(0);
    w.bm = ggml_new_tensor_3d(ctx, GGML_TYPE_BITCOS, k, nr, ne2);
    w.signs = ggml_new_tensor_1d(ctx, GGML_TYPE_I8, signs.size());
    w.rows = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, rows + 1);
    memcpy(w.bm->data, bitmap.data(), bitmap.size());
    memcpy(w.signs->data, signs.data(), signs.size());
    memcpy(w.rows->data, idx.data(), idx.size() * 4);
    w.group = f16 ? group : 256;
    w.d.resize((size_t) rows * (k / w.group));
    if (f16) {
        w.scales = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, k / group, rows);
        for (size_t i = 0; i < w.d.size(); ++i) {
            const float v = (i % 9 == 3) ? 0.0f : std::ldexp(1.0f + (rng() % 1000) / 1000.0f, -(int) (rng() % 8)) * ((rng() & 1) ? -1 : 1);
            const ggml_fp16_t h = ggml_fp32_to_fp16(v);
            ((ggml_fp16_t *) w.scales->data)[i] = h;
            w.d[i] = ggml_fp16_to_fp32(h);
        }
    } else {
        w.scales = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
        ((float *) w.scales->data)[0] = 0.0123f;
        for (auto & v : w.d) v = 0.0123f;
    }
    for (ggml_tensor * t : { w.bm, w.signs, w.rows, w.scales }) t->buffer = &fake_buffer;
    ggml_bitcos_link(w.bm, w.signs, w.rows, w.scales);
}

// op as ggml_mul_mat builds it on w, for an op tensor made by hand (a
// strided dst view): the weight and its companions in their slots
static void carry(ggml_tensor * op, const bitcos_w & w, ggml_tensor * src1) {
    op->src[0] = w.bm;
    op->src[1] = src1;
    op->src[GGML_BITCOS_SRC_SIGNS]  = w.signs;
    op->src[GGML_BITCOS_SRC_ROWS]   = w.rows;
    op->src[GGML_BITCOS_SRC_SCALES] = w.scales;
}

// GET_ROWS of a 3-D weight [512, 24, 2]: ids [5, 2] pick rows of matrix
// i11; returns the fails (a claim refused, or weights that differ from the
// plain decode), printing the count under label.
static int check_get_rows(ggml_context * ctx, ggml_backend_sycl_context & sctx, const bitcos_w & w3, const char * label) {
    ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 5, 2);
    const int32_t iv[10] = { 0, 23, 5, 7, 11, 3, 23, 0, 19, 2 };
    memcpy(ids->data, iv, sizeof iv);
    ggml_tensor * gr = ggml_get_rows(ctx, w3.bm, ids);
    gr->data = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 10 * 512)->data;
    int fails = 0;
    if (!ggml_sycl_bitcos_can_get_rows(gr)) { printf("FAIL: %s get_rows claim\n", label); fails++; }
    ggml_sycl_bitcos_get_rows(sctx, gr);
    int bad = 0;
    for (int i = 0; i < 10; ++i) for (int j = 0; j < 512; ++j) {
        const size_t r = (size_t) (i / 5) * 24 + iv[i];
        const float want = (float) w3.t[r * 512 + j] * w3.d[r * (512 / w3.group) + j / w3.group];
        const float got = ((float *) gr->data)[(size_t) i * 512 + j];
        if (memcmp(&want, &got, 4) != 0) bad++;
    }
    printf("%s get_rows 3-D: %d of %d differ\n", label, bad, 10 * 512);
    return fails + (bad != 0);
}

int main() {
    fake_buffer.buft = (ggml_backend_buffer_type_t) &fake_buffer;
    ggml_init_params ip = { 256u << 20, nullptr, false };
    ggml_context * ctx = ggml_init(ip);
    ggml_backend_sycl_context sctx;
    std::mt19937 rng(7);
    int fails = 0;
    for (bool f16 : { true, false }) {
        // GEMV: 2-D weight [2560, 45], 3 columns in a strided src1, dst strided
        bitcos_w w; make(ctx, w, 2560, 45, 1, f16, rng);
        ggml_tensor * xin = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 2560 + 64, 3);
        for (int i = 0; i < 3 * (2560 + 64); ++i) ((float *) xin->data)[i] = std::normal_distribution<float>(0, 1)(rng);
        ggml_tensor * x = ggml_view_2d(ctx, xin, 2560, 3, xin->nb[1], 0);
        ggml_tensor * dstin = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 45 + 3, 3);
        ggml_tensor * dst = ggml_view_2d(ctx, dstin, 45, 3, dstin->nb[1], 0);
        if (ggml_sycl_bitcos_supported(dst) || ggml_sycl_bitcos_can_mul_mat_vec(w.bm, x, dst)) { printf("FAIL: claims without companions\n"); fails++; }
        carry(dst, w, x);
        if (!ggml_sycl_bitcos_supported(dst) || !ggml_sycl_bitcos_can_mul_mat_vec(w.bm, x, dst)) { printf("FAIL: claims\n"); fails++; }
        ggml_sycl_bitcos_mul_mat_vec(sctx, w.bm, x, dst);
        double maxrel = 0;
        for (int c = 0; c < 3; ++c) for (int r = 0; r < 45; ++r) {
            double ref = 0, mag = 0;
            for (int j = 0; j < 2560; ++j) {
                const double v = w.t[(size_t) r * 2560 + j] * (double) w.d[(size_t) r * 10 + j / 256] * ((float *) x->data)[(size_t) c * (2560 + 64) + j];
                ref += v; mag += std::fabs(v);
            }
            const double got = ((float *) dst->data)[(size_t) c * (45 + 3) + r];
            const double rel = mag == 0 ? std::fabs(got) : std::fabs(got - ref) / mag;
            if (rel > maxrel) maxrel = rel;
        }
        printf("%s GEMV: max |err| / sum|terms| = %.2e\n", f16 ? "f16" : "f32", maxrel);
        if (maxrel > 1e-2) fails++;
        // dequantize, 3-D weight [512, 24, 2]
        bitcos_w w3; make(ctx, w3, 512, 24, 2, f16, rng);
        ggml_tensor * mm = ggml_mul_mat(ctx, w3.bm, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 512, 1, 2));
        const ggml_type dt = ggml_sycl_bitcos_dequant_type(mm);
        if (dt != (f16 ? GGML_TYPE_F16 : GGML_TYPE_F32)) { printf("FAIL: dequant type\n"); fails++; }
        std::vector<uint8_t> out(ggml_row_size(dt, 512) * 48);
        ggml_sycl_bitcos_dequantize(sctx, mm, out.data());
        int bad = 0;
        for (size_t i = 0; i < (size_t) 48 * 512; ++i) {
            const float want = (float) w3.t[i] * w3.d[i / 256];
            const float got = dt == GGML_TYPE_F16 ? ggml_fp16_to_fp32(((ggml_fp16_t *) out.data())[i]) : ((float *) out.data())[i];
            if (memcmp(&want, &got, 4) != 0) {
                if (bad < 3) {
                    printf("  i=%zu want %g got %g\n", i, want, got);
                }
                bad++;
            }
        }
        printf("%s dequantize 3-D: %d of %d differ\n", f16 ? "f16" : "f32", bad, 48 * 512);
        fails += bad != 0;
        fails += check_get_rows(ctx, sctx, w3, f16 ? "f16" : "f32");
    }
    // MUL_MAT_ID: experts [512, 24, 4], ids [2, 3], src1 [512, ne11, 3] with ne11 = 1 (broadcast) and 2
    for (bool f16 : { true, false }) for (int ne11 : { 1, 2 }) {
        bitcos_w w; make(ctx, w, 512, 24, 4, f16, rng);
        ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 512, ne11, 3);
        for (int64_t i = 0; i < ggml_nelements(b); ++i) ((float *) b->data)[i] = std::normal_distribution<float>(0, 1)(rng);
        ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 3);
        const int32_t iv[6] = { 3, 0, 1, 3, 2, 1 };
        memcpy(ids->data, iv, sizeof iv);
        ggml_tensor * out = ggml_mul_mat_id(ctx, w.bm, b, ids);
        if (!ggml_sycl_bitcos_can_mul_mat_id(out)) { printf("FAIL: mul_mat_id claim\n"); fails++; }
        ggml_sycl_bitcos_mul_mat_id(sctx, out);
        double maxrel = 0;
        for (int t = 0; t < 3; ++t) for (int s = 0; s < 2; ++s) for (int r = 0; r < 24; ++r) {
            const int e = iv[t * 2 + s];
            const size_t row = (size_t) e * 24 + r;
            const float * x = (const float *) b->data + ((size_t) (s % ne11) + (size_t) t * ne11) * 512;
            double ref = 0, mag = 0;
            for (int j = 0; j < 512; ++j) {
                const double v = w.t[row * 512 + j] * (double) w.d[row * 2 + j / 256] * x[j];
                ref += v; mag += std::fabs(v);
            }
            const double got = *(const float *) ((const char *) out->data + s * out->nb[1] + t * out->nb[2] + r * 4);
            const double rel = mag == 0 ? std::fabs(got) : std::fabs(got - ref) / mag;
            if (rel > maxrel) maxrel = rel;
        }
        printf("%s MUL_MAT_ID ne11=%d: max |err| / sum|terms| = %.2e\n", f16 ? "f16" : "f32", ne11, maxrel);
        if (!(maxrel < 1e-2)) fails++;
    }
    {  // F16 scales per 64 (Q2_0 sources): the decodes, no GEMV, no MUL_MAT_ID
        bitcos_w w3; make(ctx, w3, 512, 24, 2, true, rng, 64);
        ggml_tensor * mm = ggml_mul_mat(ctx, w3.bm, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 512, 1, 2));
        if (!ggml_sycl_bitcos_supported(mm) || ggml_sycl_bitcos_dequant_type(mm) != GGML_TYPE_F16) { printf("FAIL: per-64 claim or dequant type\n"); fails++; }
        bitcos_w w2; make(ctx, w2, 512, 24, 1, true, rng, 64);
        ggml_tensor * x2 = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 512, 1);
        ggml_tensor * m2 = ggml_mul_mat(ctx, w2.bm, x2);
        if (ggml_sycl_bitcos_can_mul_mat_vec(w2.bm, x2, m2)) { printf("FAIL: the GEMV claims scales per 64\n"); fails++; }
        bitcos_w we; make(ctx, we, 512, 24, 4, true, rng, 64);
        ggml_tensor * ids2 = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, 2, 3);
        ggml_tensor * mid  = ggml_mul_mat_id(ctx, we.bm, ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 512, 1, 3), ids2);
        if (ggml_sycl_bitcos_can_mul_mat_id(mid)) { printf("FAIL: MUL_MAT_ID claims scales per 64\n"); fails++; }
        std::vector<uint8_t> out(ggml_row_size(GGML_TYPE_F16, 512) * 48);
        ggml_sycl_bitcos_dequantize(sctx, mm, out.data());
        int bad = 0;
        for (size_t i = 0; i < (size_t) 48 * 512; ++i) {
            const float want = (float) w3.t[i] * w3.d[i / 64];
            const float got  = ggml_fp16_to_fp32(((ggml_fp16_t *) out.data())[i]);
            if (memcmp(&want, &got, 4) != 0) bad++;
        }
        printf("f16 per 64 dequantize 3-D: %d of %d differ\n", bad, 48 * 512);
        fails += bad != 0;
        fails += check_get_rows(ctx, sctx, w3, "f16 per 64");
    }
    printf(fails ? "FAILED\n" : "glue OK\n");
    return fails != 0;
}
