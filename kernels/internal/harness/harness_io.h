// What the CPU harnesses of the device kernels share (test aids, not part of
// any patch): kernels/cuda/harness/harness.cpp and
// kernels/sycl/harness/harness.cpp include it, and kernels/cuda_test.go and
// kernels/sycl_test.go list it among the sources they build them from.
//
//   die      prints "harness: MSG" and exits with status 2
//   reader   little-endian values and raw bytes from the Go test's IN.bin
//   guarded  a buffer that ends right before an inaccessible page
//   put      n values to OUT.bin
//
// Every failure is fatal: the Go test reads a non-zero exit as the harness's
// verdict (a guard page's fault included).

#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void die(const std::string & msg) {
    std::fprintf(stderr, "harness: %s\n", msg.c_str());
    std::exit(2);
}

struct reader {
    FILE * f;

    template <typename T> T get() {
        T v;
        if (std::fread(&v, sizeof v, 1, f) != 1) {
            die("short input");
        }
        return v;
    }

    void bytes(void * p, size_t n) {
        if (n != 0 && std::fread(p, 1, n, f) != n) {
            die("short input");
        }
    }
};

// n bytes, 4-byte aligned, ending right before a PROT_NONE page (bytes up to the
// next multiple of 4 stay readable: aligned word loads may touch them).
struct guarded {
    void *    map = nullptr;
    size_t    len = 0;
    uint8_t * p   = nullptr;

    explicit guarded(size_t n) {
        const size_t page = (size_t) sysconf(_SC_PAGESIZE);
        const size_t n4   = (n + 3) / 4 * 4;
        const size_t body = (n4 + page - 1) / page * page;
        len               = body + page;
        map               = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) {
            die("mmap");
        }
        if (mprotect((uint8_t *) map + body, page, PROT_NONE) != 0) {
            die("mprotect");
        }
        p = (uint8_t *) map + body - n4;
    }

    guarded(const guarded &)             = delete;
    guarded & operator=(const guarded &) = delete;

    ~guarded() { munmap(map, len); }
};

template <typename T> void put(FILE * f, const T * p, size_t n) {
    if (n != 0 && std::fwrite(p, sizeof(T), n, f) != n) {
        die("short write");
    }
}

}  // namespace
