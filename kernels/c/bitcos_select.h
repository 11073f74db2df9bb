// Which BITCOS kernel runs, and why, written as a rule (bitcos_select.c).
// llama.cpp's core compiles the same choice for its build (arch/<isa>/quants.c,
// by the BITCOS_*_SIMD macros of bitcos_tq2fast.h: this rule for a CPU whose
// pdep is fast); its CPU extra buffer type (patch 0011, bitcos-layout.cpp)
// fills the features from the bitcos_have_* of each kernel file,
// bitcos_build_tq2_order (bitcos.h) and cpuid, and calls bitcos_select for the
// layout rule below; advise measures the kernel it names; the Go tests
// (kernels/select_test.go) call it through the cgo shim on every branch.
// Pure: no cpuid, no getenv, no state.

#pragma once

#include "bitcos.h" // enum bitcos_order, bitcos_build_tq2_order

#ifdef __cplusplus
extern "C" {
#endif

// The kernels, named as advise --kernel spells them (bitcos_kernel_name):
// exactly the ones a default can choose (bitcos_select below), one scalar
// kernel per float order and the SIMD kernels of TQ2_0's orders.
enum bitcos_kernel {
    BITCOS_KERNEL_GENERIC,          // exact order, scalar (bitcos_generic.c)
    BITCOS_KERNEL_TQ2ORDER,         // TQ2_0 x86 order, scalar (bitcos_tq2order.c)
    BITCOS_KERNEL_AVX2_TQ2,         // TQ2_0 x86 order, AVX2+BMI2+FMA (bitcos_avx2_tq2.c)
    BITCOS_KERNEL_AVX2_NOPDEP_TQ2,  // TQ2_0 x86 order, AVX2+FMA without pdep (bitcos_nopdep.c)
    BITCOS_KERNEL_AVX512_TQ2,       // TQ2_0 x86 order, AVX-512 F+BW+FMA (bitcos_avx512_tq2.c)
    BITCOS_KERNEL_AVX2_CLMUL,       // TQ2_0 x86 order, AVX2+BMI2+FMA+PCLMULQDQ (bitcos_avx2_clmul.c)
    BITCOS_KERNEL_TQ2ORDER_ARM,     // TQ2_0 ARM order, scalar (bitcos_neon_tq2.c)
    BITCOS_KERNEL_NEON_TQ2,         // TQ2_0 ARM order, NEON (+dotprod) (bitcos_neon_tq2.c)
    BITCOS_KERNEL_COUNT
};

enum bitcos_vendor {
    BITCOS_VENDOR_OTHER,
    BITCOS_VENDOR_INTEL,
    BITCOS_VENDOR_AMD,
    BITCOS_VENDOR_HYGON,
};

struct bitcos_cpu_features {
    // bit (1u << k) set: kernel k was compiled with its SIMD path in this
    // build (its bitcos_have_* returns 1; the scalar kernels always are).
    // A compiled kernel runs on this CPU: ggml loads a CPU backend (variant)
    // only on CPUs that run the ISA it was compiled for, and every kernel
    // file gets the backend's flags. The one file with a flag of its own is
    // avx2_clmul's (-mpclmul), hence pclmul below.
    unsigned built;
    int pclmul;  // the CPU has PCLMULQDQ (cpuid 1, ecx bit 1)
    int vendor;  // enum bitcos_vendor (cpuid 0)
    int family;  // x86 family, base + extended (cpuid 1); 0 elsewhere
    int tq2_0_vnni; // bitcos_tq2_0_vnni.c was compiled with AVX-512 VNNI (bitcos_have_tq2_0_vnni)
    int tq2_order;  // enum bitcos_order of this build's ggml TQ2_0 kernel: bitcos_build_tq2_order()
                    // (0, the exact order, where a caller leaves it unset)
};

struct bitcos_choice {
    int          kernel; // enum bitcos_kernel
    int          order;  // enum bitcos_order
    const char * name;   // bitcos_kernel_name(kernel)
    const char * why;    // one line for the log (static storage)
    int          forced; // forced names this kernel (1), or it is the default (0)
    int          vendor; // enum bitcos_vendor of the CPU it was chosen for
    int          tq2_0_vnni; // the features' tq2_0_vnni: converted weights get the VNNI one-column kernel
};

// The one "slow pdep" rule: pdep/pext are microcoded on AMD before Zen 3
// (family 0x17 Zen 1/2 and earlier, e.g. 0x15 Excavator) and on Hygon (0x18,
// Zen 1): tens to hundreds of cycles per 64-bit pdep, slower than the rank
// tables of bitcos_nopdep.c. Go twin: format.SlowPdep (tested to agree).
int bitcos_slow_pdep(int vendor, int family);

// The kernel for these features. forced (advise --kernel; may be NULL)
// names a kernel to run instead of the default; a forced kernel this build
// did not compile runs as its scalar fallback of the same order (generic,
// tq2order, tq2order_arm), and an unknown name is ignored (why says so): so
// are avx2, avx2_nopdep and avx512, exact-order kernels retired because no
// default ran them (kernels/README.md).
// Default, first that applies; the default always computes in the float
// order of this build's ggml TQ2_0 kernel (a SIMD kernel below compiles only
// with the ISA whose macro gives ggml's TQ2_0 kernel that same order):
//   avx512_tq2                                  (AVX-512 build)
//   avx2_clmul   unless slow pdep; needs pclmul
//   avx2_tq2     unless slow pdep
//   avx2_nopdep_tq2                             (AVX2+FMA builds, slow pdep)
//   neon_tq2                                    (aarch64 builds)
//   the scalar kernel of tq2_order:             (no SIMD kernel compiled, e.g.
//     tq2order      x86 order                    an AVX2 build without F16C)
//     tq2order_arm  ARM order
//     generic       exact order                 (x86-64 baseline, others)
struct bitcos_choice bitcos_select(const struct bitcos_cpu_features * f, const char * forced);

// Where BITCOS weights are multiplied from. NATIVE: the file's own layout,
// through the kernel above (the smallest bytes per weight: wins where the
// decode keeps up with memory). TQ2_0: each weight decoded once at load into
// blocks of TQ2_0 codes (`bitcos_to_tq2_0`, bitcos_layout.c; patch 0011's CPU
// extra buffer type CPU_BITCOS): TQ2_0's own blocks for fp16 scales per 256
// weights, multiplied by ggml's TQ2_0 kernels or ours of the same bits
// (results bit-identical to the TQ2_0 source); f32 blocks (the same codes
// with the f32 scale) for a per-tensor f32 scale (an I2_S source),
// multiplied by kernels of the native kernel's float order (results
// bit-identical to the native layout's). The file and the download stay small.
enum bitcos_layout {
    BITCOS_LAYOUT_NATIVE,
    BITCOS_LAYOUT_TQ2_0,
    BITCOS_LAYOUT_COUNT
};

struct bitcos_layout_choice {
    int          layout; // enum bitcos_layout
    const char * name;   // bitcos_layout_name(layout): "native", "tq2_0"
    const char * why;    // one line for the log (static storage)
};

// The layout of the weight tensors, fp16- and f32-scaled alike (both
// kinds have kernels of every float order in the TQ2_0 layout,
// bitcos_layout.h). k: the kernel bitcos_select chose.
// forced (GGML_BITCOS_LAYOUT, may be NULL): "native" or "tq2_0".
// First that applies:
//   forced   GGML_BITCOS_LAYOUT names a layout (an unknown name is ignored)
//   native   a kernel was forced (advise --kernel: the user asked to run it)
//   tq2_0    the kernel is avx512_tq2, the CPU is AMD and the build has the
//            VNNI kernel of TQ2_0 blocks (bitcos_tq2_0_vnni.c: 64 codes per
//            vpdpbusd, half the time per weight of avx512_tq2's decode in
//            cache). Token generation, 2B shape, Zen 5, against TQ2_0:
//            1.22-1.33x at 1 and 2 threads, where native ran 0.91-0.95x (1)
//            and 1.10-1.12x (2) (docs/BENCHMARKS.md); batches of TQ2_0 blocks
//            run the batched kernel too (bitcos_gemm_panel_tq2_0)
//   native   the kernel is avx512_tq2 otherwise: Ice Lake 1.00-1.07x,
//            Sapphire Rapids class 1.47-1.54x TQ2_0 (not measured there
//            against the VNNI TQ2_0 blocks yet), and batches run the batched
//            kernel (bitcos_gemm.c, 2.8-3.2x TQ2_0 on Zen 5)
//   tq2_0    any other kernel: on AVX2 alone BITCOS ran 0.72-0.81x TQ2_0
//            (Ice Lake) and 0.69x (Zen 5, one thread) in token generation,
//            and the AVX2 batched kernel only ties TQ2_0's; NEON needs ~4x
//            TQ2_0's instructions per weight (80.5 vs 20.75 per 64), the
//            scalar kernels more
// `gguf-bitcos advise` prints this choice beside its measurements (the Go
// test kernels/select_test.go checks every branch).
struct bitcos_layout_choice bitcos_select_layout(const struct bitcos_choice * k, const char * forced);

const char * bitcos_layout_name(int layout);   // NULL when out of range

// Devices (GPU backends). A device whose backend has no BITCOS path for an op
// may still run a stock ternary type: the loader then transcodes the weight
// at load, on the host, into that type (bitcos_transcode.h), with the
// source's values bit for bit, and the backend's own kernels run it.
enum bitcos_device_layout {
    BITCOS_DEVICE_NATIVE,  // the backend's own BITCOS path
    BITCOS_DEVICE_TQ2_0,   // TQ2_0 blocks made at load (bitcos_row_to_tq2_0)
    BITCOS_DEVICE_Q2_0,    // Q2_0 blocks made at load (bitcos_row_to_q2_0)
    BITCOS_DEVICE_HOST,    // none fits, or forced: the weight stays on the CPU
    BITCOS_DEVICE_LAYOUT_COUNT
};

// What the device's supports_op said of the op with a weight of each type
// (the same shape; the loader's placement probe).
struct bitcos_device_caps {
    int native;  // a BITCOS weight with its companions
    int tq2_0;   // a TQ2_0 weight
    int q2_0;    // a Q2_0 weight
};

// The layout of one weight on one device. group: the weights per fp16 scale
// (256 for TQ2_0 and TQ1_0 sources, 64 for Q2_0 sources), or 0 for a
// per-tensor f32 scale (I2_S sources). forced (GGML_BITCOS_DEVICE_LAYOUT,
// may be NULL): "native", "tq2_0", "q2_0" or "host". First that applies:
//   forced   it names a layout the device can take for this weight (an
//            unknown name, or one the device cannot take, is ignored and
//            said so in why); "host" keeps the weight on the CPU (exact, for
//            an f32 scale that would otherwise be rounded)
//   native   the backend runs the op on BITCOS (CUDA for f32 scales, Vulkan,
//            SYCL; bytes read per weight 2 - z bits, the least)
//   tq2_0    a per-tensor f32 scale, a device that runs TQ2_0: the scale
//   q2_0     rounded to fp16 (round to nearest even: a relative change of at
//            most 2^-11, what a TQ2_0 conversion of the same checkpoint
//            stores), TQ2_0 preferred (2.06 bits per weight against 2.25)
//   tq2_0    the device runs TQ2_0 and the scales are per 256 weights
//            (Metal; TQ2_0 reads 2.06 bits per weight)
//   q2_0     the device runs Q2_0 (CUDA, HIP; 2.25 bits per weight); each
//            64-weight block takes the scale of the group it lies in
//   host     otherwise
// The Go test kernels/transcode_test.go checks every branch.
struct bitcos_layout_choice bitcos_select_device_layout(const struct bitcos_device_caps * caps, int group,
                                                        const char * forced);

const char * bitcos_device_layout_name(int layout); // "native", "tq2_0", "q2_0", "host"; NULL when out of range

const char * bitcos_kernel_name(int kernel);   // NULL when out of range
int          bitcos_kernel_order(int kernel);  // enum bitcos_order, -1 when out of range

#ifdef __cplusplus
}
#endif
