// Times the BITCOS mat-vec variants of patch 0016 (ggml-cuda's
// bitcos-kernels.cuh) alone, one column, at the shapes of ternary models: a
// test aid for a GPU session that has minutes, not the 9 of kernels/cuda/bench.sh
// (no ggml-cuda build: one nvcc call of about a minute). kernels/cuda/microbench/run.sh
// builds and runs it; README.md beside it says what it prints.
//
// Each shape: random rows at zero densities 0.30-0.52 (a few all-zero rows),
// fp16 scales, q8_1 activations; every variant launched 100 times inside one
// CUDA graph (no launch overhead in the figure, as test-backend-ops perf), the
// graph replayed 20 times after a warm-up: us per mat-vec, and GB/s of the
// weight's bytes (bitmap, signs, scales, row index). A plain read of the same
// bytes (uint4 loads, one pass) gives the achievable rate at that size. The
// variants' results must agree (another float order: within 1e-4 of the
// largest |result|; the same order, as the paired variants and w1: bit for
// bit), else the variant's line says so.

#include "bitcos-kernels.cuh"

#ifdef GGML_USE_HIP // the names ggml's vendors/hip.h does not map (the HIP compile check of kernels/cuda_glue_test.go)
#define cudaStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define cudaEventCreate             hipEventCreate
#define cudaEventElapsedTime        hipEventElapsedTime
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

// ggml-cuda.cu's, for CUDA_CHECK
void ggml_cuda_error(const char * stmt, const char * func, const char * file, int line, const char * msg) {
    fprintf(stderr, "CUDA error: %s\n  %s in %s at %s:%d\n", msg, stmt, func, file, line);
    exit(1);
}

namespace {

struct shape {
    const char * name;
    int          rows, k;
};

struct variant {
    const char * name;
    void (*run)(const bitcos_cuda_mmv_launch &);
    const char * order; // variants of one float order must agree bit for bit (fused: not compared)
};

template <int nwarps, bool seg, bool shared_table, bool fused>
void run_variant(const bitcos_cuda_mmv_launch & l) {
    bitcos_cuda_mmv_run<nwarps, seg, shared_table, 1, fused>(l);
}

template <int rows_per_block, bool stage, int table, bool fused>
void run_pairs(const bitcos_cuda_mmv_launch & l) {
    bitcos_cuda_mmv_pairs_run<rows_per_block, stage, table, 1, fused>(l);
}

const variant variants[] = {
    { "w4s", run_variant<4, false, true, false>, "w4" },    { "w4g", run_variant<4, false, false, false>, "w4" },
    { "w1s", run_variant<1, false, true, false>, "w1" },    { "w1g", run_variant<1, false, false, false>, "w1" },
    { "w2s", run_variant<2, false, true, false>, "w2" },    { "w8s", run_variant<8, false, true, false>, "w8" },
    { "s1s", run_variant<1, true, true, false>, "s1" },     { "s1g", run_variant<1, true, false, false>, "s1" },
    // the paired geometry (the one-warp order): activations staged (y) or not (p), 4 or 8 rows per
    // block, the table in global memory (g) or shared memory in 1, 16 or 32 copies (s, h, r)
    { "y4s", run_pairs<4, true, 1, false>, "w1" },         { "y4g", run_pairs<4, true, 0, false>, "w1" },
    { "y8s", run_pairs<8, true, 1, false>, "w1" },         { "y8g", run_pairs<8, true, 0, false>, "w1" },
    { "y8h", run_pairs<8, true, 16, false>, "w1" },        { "y8r", run_pairs<8, true, 32, false>, "w1" },
    { "y4r", run_pairs<4, true, 32, false>, "w1" },        { "p4g", run_pairs<4, false, 0, false>, "w1" },
    // fused gate/up/GLU (the gate is the same weight): two rows' worth per row
    { "w4s+glu", run_variant<4, false, true, true>, nullptr }, { "w1s+glu", run_variant<1, false, true, true>, nullptr },
    { "w1g+glu", run_variant<1, false, false, true>, nullptr }, { "y4g+glu", run_pairs<4, true, 0, true>, nullptr },
    { "y8s+glu", run_pairs<8, true, 1, true>, nullptr },         { "y8r+glu", run_pairs<8, true, 32, true>, nullptr },
};

// a plain read of n 16-byte words (the achievable rate at this size)
__global__ void read_bytes(const uint4 * __restrict__ p, const int64_t n, uint32_t * __restrict__ out) {
    uint32_t acc = 0;
    for (int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t) gridDim.x * blockDim.x) {
        const uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) {
        out[0] = acc; // keeps the loads
    }
}

template <typename F> float time_us(cudaStream_t stream, F launch) {
    cudaGraph_t     graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < 100; ++i) {
        launch();
    }
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    CUDA_CHECK(cudaGraphLaunch(exec, stream)); // warm-up
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a, stream));
    for (int i = 0; i < 20; ++i) {
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
    }
    CUDA_CHECK(cudaEventRecord(b, stream));
    CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return ms * 1000.0f / (20 * 100);
}

template <typename T> T * upload(const std::vector<T> & v) {
    T * p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, v.size() * sizeof(T) + 16));
    CUDA_CHECK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

void run_shape(const shape & s, cudaStream_t stream) {
    const int    nchunks = s.k / BITCOS_CUDA_CHUNK;
    std::mt19937 rng(s.rows * 131 + s.k);
    std::uniform_real_distribution<float> zd(0.30f, 0.52f), u(0.0f, 1.0f);

    std::vector<uint32_t> bitmap((size_t) s.rows * nchunks, 0);
    std::vector<int32_t>  rows(s.rows + 1);
    std::vector<uint8_t>  signs;
    for (int r = 0; r < s.rows; ++r) {
        rows[r]       = (int32_t) signs.size();
        const float z = r % 17 == 5 ? 1.0f : zd(rng); // a few all-zero rows
        int         nnz = 0;
        for (int j = 0; j < s.k; ++j) {
            if (u(rng) >= z) {
                bitmap[(size_t) r * nchunks + j / 32] |= 1u << (j % 32);
                nnz++;
            }
        }
        for (int b = 0; b < (nnz + 7) / 8; ++b) {
            signs.push_back((uint8_t) rng());
        }
    }
    rows[s.rows] = (int32_t) signs.size();
    const size_t sign_bytes = signs.size();
    signs.resize(sign_bytes + 8 + 3, 0); // the format's 8-byte tail, then whole words
    std::vector<uint16_t> d16((size_t) s.rows * (s.k / BITCOS_CUDA_QK), 0x3c00); // 1.0
    std::vector<uint8_t>  y((size_t) nchunks * 36);
    for (int c = 0; c < nchunks; ++c) {
        const uint16_t d = 0x2000; // 2^-7
        memcpy(&y[(size_t) c * 36], &d, 2);
        memset(&y[(size_t) c * 36 + 2], 0, 2);
        for (int i = 0; i < 32; ++i) {
            y[(size_t) c * 36 + 4 + i] = (uint8_t) (int8_t) ((int) (rng() % 255) - 127);
        }
    }

    bitcos_cuda_mmv_launch l = {};
    l.w       = { upload(bitmap), (const uint32_t *) upload(signs), upload(rows), (const half *) upload(d16), nullptr, nchunks,
                  BITCOS_CUDA_SCALE_SHIFT_256 };
    l.gate    = l.w;
    l.y       = (const block_q8_1 *) upload(y);
    float * dst = nullptr;
    CUDA_CHECK(cudaMalloc(&dst, s.rows * sizeof(float)));
    l.dst     = dst;
    l.a       = bitcos_cuda_mmv_args_mul_mat(s.rows, 1, 1, 1, 1, 1, nchunks, s.rows, 0, 0);
    l.gy      = 1;
    l.gz      = 1;
    l.glu_op  = GGML_GLU_OP_SWIGLU;
    l.stream  = stream;

    const double bytes = 4.0 * bitmap.size() + sign_bytes + 2.0 * d16.size() + 4.0 * rows.size();
    printf("%-24s %6d x %-6d %7.2f MB, z %.3f\n", s.name, s.rows, s.k, bytes / 1e6,
           1.0 - 8.0 * sign_bytes / ((double) s.rows * s.k));

    std::vector<float> ref(s.rows), got(s.rows);
    std::map<std::string, std::vector<float>> by_order; // the first result of each float order
    for (const variant & v : variants) {
        const bool fused = strstr(v.name, "+glu") != nullptr;
        const float us   = time_us(stream, [&] { v.run(l); });
        CUDA_CHECK(cudaMemcpy(got.data(), dst, s.rows * sizeof(float), cudaMemcpyDeviceToHost));
        std::string note;
        if (v.order != nullptr) {
            const auto same = by_order.find(v.order);
            if (same == by_order.end()) {
                by_order[v.order] = got;
            } else if (memcmp(same->second.data(), got.data(), got.size() * sizeof(float)) != 0) {
                note = std::string("  BITS DIFFER from the first variant of order ") + v.order;
            }
        }
        if (v.run == variants[0].run) {
            ref = got;
        } else if (!fused) {
            float amax = 0.0f, dmax = 0.0f;
            for (int r = 0; r < s.rows; ++r) {
                amax = fmaxf(amax, fabsf(ref[r]));
                dmax = fmaxf(dmax, fabsf(ref[r] - got[r]));
            }
            if (dmax > 1e-4f * amax) {
                note += "  RESULTS DIFFER from w4s by " + std::to_string(dmax / amax) + " of the largest";
            }
        }
        printf("  %-8s %9.2f us %8.1f GB/s%s\n", v.name, us, (fused ? 2 : 1) * bytes / us / 1e3, note.c_str());
    }
    const int64_t n16 = (int64_t) (bytes / 16);
    uint4 *       p   = nullptr;
    uint32_t *    out = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n16 * 16 + 16));
    CUDA_CHECK(cudaMemset(p, 1, n16 * 16));
    CUDA_CHECK(cudaMalloc(&out, 4));
    const float us = time_us(stream, [&] { read_bytes<<<132 * 8, 256, 0, stream>>>(p, n16, out); });
    printf("  %-8s %9.2f us %8.1f GB/s\n", "read", us, n16 * 16 / us / 1e3);
    CUDA_CHECK(cudaFree(p));
    CUDA_CHECK(cudaFree(out));
    CUDA_CHECK(cudaFree(dst));
    CUDA_CHECK(cudaFree((void *) l.w.bitmap));
    CUDA_CHECK(cudaFree((void *) l.w.signs));
    CUDA_CHECK(cudaFree((void *) l.w.rows));
    CUDA_CHECK(cudaFree((void *) l.w.d16));
    CUDA_CHECK(cudaFree((void *) l.y));
}

} // namespace

int main() {
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const shape shapes[] = {
        { "2B attn q/o", 2560, 2560 },  { "2B attn k/v", 640, 2560 },    { "2B ffn gate/up", 6912, 2560 },
        { "2B ffn down", 2560, 6912 },  { "8B ffn up", 14336, 4096 },    { "8B ffn down", 4096, 14336 },
        { "70B ffn up", 28672, 8192 },  { "70B ffn down", 8192, 28672 },
    };
    for (const shape & s : shapes) {
        run_shape(s, stream);
    }
    return 0;
}
