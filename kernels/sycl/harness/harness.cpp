// Test harness for kernels/sycl/bitcos_sycl.hpp under SimSYCL (a test aid, not
// part of the patch). kernels/sycl_test.go builds it with g++ against an
// installed SimSYCL and drives it:
//
//   harness system OUT.json SG   write SimSYCL's built-in system with sub-group size SG
//   harness run IN.bin OUT.bin   run every case of IN.bin (SIMSYCL_SYSTEM picks the device;
//                                BITCOS_HARNESS_LAUNCH_SG=16|32 launches for another size)
//
// IN.bin (little-endian): "BCSY", u32 ncases, then per case
//   i32 k, rows, ncols, nidx, scales (0 fp16 per 256, 1 one f32, 2 fp16 per 64);
//   f32 d32; u32 sign_bytes; bitmap[rows*k/8]; signs[sign_bytes]; i32 rowidx[rows+1];
//   u16 d16[rows*k/256] or [rows*k/64] (absent with one f32);
//   Q8_K blocks [ncols][k/256] (292 bytes each); f32 x[ncols][k]; i32 idx[nidx]
// OUT.bin: u32 the sub-group size the kernels ran with, then per case
//   f32 dot[ncols][rows] (dot products with the given Q8_K blocks; zeros with
//   scales per 64, which the GEMV does not take);
//   Q8_K blocks [ncols][k/256] quantized from x on the device;
//   f32 deq[rows][k]; u16 deq16[rows][k] (fp16 bits); f32 getrows[nidx][k]
//
// The bitmap and the sign stream sit right before an inaccessible page, so a
// kernel read past them crashes the run instead of going unnoticed.

#include "../bitcos_sycl.hpp"
#include "../../internal/harness/harness_io.h"  // die, reader, guarded, put

#include <simsycl/system.hh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

template <int SG> void run_case(sycl::queue & q, reader & in, FILE * out) {
    const int   k          = in.get<int32_t>();
    const int   rows       = in.get<int32_t>();
    const int   ncols      = in.get<int32_t>();
    const int   nidx       = in.get<int32_t>();
    const int   scales     = in.get<int32_t>();
    const float d32        = in.get<float>();
    const auto  sign_bytes = in.get<uint32_t>();
    if (k <= 0 || k % bitcos_sycl::QK != 0 || rows < 0 || ncols < 1 || nidx < 0 || scales < 0 || scales > 2) {
        die("bad case header");
    }
    const bool per_tensor = scales == 1;
    const int  group      = scales == 2 ? 64 : bitcos_sycl::QK;
    const size_t nb = (size_t) k / bitcos_sycl::QK;

    guarded bitmap((size_t) rows * k / 8);
    guarded signs(sign_bytes);
    in.bytes(bitmap.p, (size_t) rows * k / 8);
    in.bytes(signs.p, sign_bytes);
    std::vector<int32_t> rowidx(rows + 1);
    in.bytes(rowidx.data(), rowidx.size() * 4);
    std::vector<uint16_t> d16;
    if (!per_tensor) {
        d16.resize((size_t) rows * (k / group));
        in.bytes(d16.data(), d16.size() * 2);
    }
    const size_t         ystride = nb * bitcos_sycl::Q8K_BYTES;
    std::vector<uint8_t> y((size_t) ncols * ystride);
    in.bytes(y.data(), y.size());
    std::vector<float> x((size_t) ncols * k);
    in.bytes(x.data(), x.size() * 4);
    std::vector<int32_t> idx(nidx);
    in.bytes(idx.data(), idx.size() * 4);

    const bitcos_sycl::weight w{ (const uint32_t *) bitmap.p, (const uint32_t *) signs.p, rowidx.data(),
                                 per_tensor ? nullptr : d16.data(), &d32, k, group };

    std::vector<float> dot((size_t) ncols * rows, 0.0f);
    if (group == bitcos_sycl::QK) {
        bitcos_sycl::mul_mat_vec_q8_K<SG>(q, w, rows, y.data(), ystride, ncols, dot.data(), rows).wait();
    }
    put(out, dot.data(), dot.size());

    std::vector<uint8_t> yq((size_t) ncols * ystride, 0xAA);
    bitcos_sycl::quantize_q8_K_cols<SG>(q, x.data(), k, k, ncols, yq.data(), ystride).wait();
    put(out, yq.data(), yq.size());

    std::vector<float> deq((size_t) rows * k, 12345.0f);
    bitcos_sycl::dequantize<SG, float>(q, w, rows, deq.data()).wait();
    put(out, deq.data(), deq.size());

    std::vector<sycl::half> deq16((size_t) rows * k, sycl::half(7.0f));
    bitcos_sycl::dequantize<SG, sycl::half>(q, w, rows, deq16.data()).wait();
    std::vector<uint16_t> bits16(deq16.size());
    std::memcpy(bits16.data(), deq16.data(), bits16.size() * 2);
    put(out, bits16.data(), bits16.size());

    std::vector<float> gr((size_t) nidx * k, 12345.0f);
    bitcos_sycl::get_rows<SG, float>(q, w, nidx, rows, idx.data(), nidx, gr.data(), k).wait();
    put(out, gr.data(), gr.size());
}

uint32_t device_sub_group_size(sycl::queue & q) {
    uint32_t * sg = sycl::malloc_shared<uint32_t>(1, q);
    q.parallel_for(sycl::nd_range<1>(64, 64), [=](sycl::nd_item<1> it) {
         if (it.get_global_linear_id() == 0) {
             *sg = (uint32_t) it.get_sub_group().get_local_linear_range();
         }
     }).wait();
    const uint32_t v = *sg;
    sycl::free(sg, q);
    return v;
}

}  // namespace

int main(int argc, char ** argv) {
    if (argc == 4 && std::string(argv[1]) == "system") {
        simsycl::system_config sys = simsycl::builtin_system;
        for (auto & [id, dev] : sys.devices) {
            dev.sub_group_sizes = { (size_t) std::atoi(argv[3]) };
        }
        simsycl::write_system_config(argv[2], sys);
        return 0;
    }
    if (argc != 4 || std::string(argv[1]) != "run") {
        die("usage: harness system OUT.json SG | harness run IN.bin OUT.bin");
    }
    FILE * fin  = std::fopen(argv[2], "rb");
    FILE * fout = std::fopen(argv[3], "wb");
    if (!fin || !fout) {
        die("cannot open files");
    }
    reader in{ fin };
    if (in.get<uint32_t>() != 0x59534342u) {  // "BCSY"
        die("bad magic");
    }
    const uint32_t ncases = in.get<uint32_t>();
    sycl::queue    q;
    const uint32_t sg = device_sub_group_size(q);
    put(fout, &sg, 1);
    // BITCOS_HARNESS_LAUNCH_SG: launch as if for another sub-group size than
    // the device's (the launchers must still cover every row)
    const char *   launch_env = std::getenv("BITCOS_HARNESS_LAUNCH_SG");
    const uint32_t launch     = launch_env ? (uint32_t) std::atoi(launch_env) : sg;
    for (uint32_t c = 0; c < ncases; ++c) {
        switch (launch) {
            case 16:
                run_case<16>(q, in, fout);
                break;
            case 32:
                run_case<32>(q, in, fout);
                break;
            default:
                die("sub-group size " + std::to_string(launch) + " (want 16 or 32)");
        }
    }
    if (std::fclose(fout) != 0) {
        die("close");
    }
    std::fclose(fin);
    return 0;
}
