// A stand-in for ggml-sycl's common.hpp with just what ggml-sycl/bitcos.cpp
// (patch 0008's glue) uses, so that the glue builds with g++ against SimSYCL
// (kernels/sycl_glue_test.go). Test aid only: not in the patch.
#pragma once

#include <sycl/sycl.hpp>

#include <cstdint>
#include <cstdlib>

#include "ggml.h"
#include "ggml-backend-impl.h"
#define GGML_COMMON_DECL_CPP
#include "ggml-common.h"

#define WARP_SIZE 16

typedef sycl::queue * queue_ptr;

namespace dpct {
// what dpct::dp4a computes: c + the dot product of the four signed bytes
inline int dp4a(int a, int b, int c) {
    for (int i = 0; i < 4; ++i) {
        c += (int) (int8_t) (a >> (8 * i)) * (int) (int8_t) (b >> (8 * i));
    }
    return c;
}
}  // namespace dpct

struct ggml_sycl_pool {
    void * alloc(size_t n) { return std::malloc(n); }
    void   free(void * p) { std::free(p); }
};

template <typename T> struct ggml_sycl_pool_alloc {
    ggml_sycl_pool * pool;
    T *              ptr;

    ggml_sycl_pool_alloc(ggml_sycl_pool & p, size_t n) : pool(&p), ptr((T *) p.alloc(n * sizeof(T))) {}

    ~ggml_sycl_pool_alloc() { pool->free(ptr); }

    T * get() { return ptr; }
};

// in order, as ggml-sycl's queues
struct ggml_backend_sycl_context {
    ggml_sycl_pool p;
    sycl::queue    q{ sycl::property::queue::in_order() };

    ggml_sycl_pool & pool() { return p; }

    queue_ptr stream() { return &q; }
};
