// The choice of BITCOS kernel (see bitcos_select.h for the rule).

#include "bitcos_select.h"

#include <stddef.h>
#include <string.h>

static const char * const bitcos_kernel_names[BITCOS_KERNEL_COUNT] = {
    [BITCOS_KERNEL_GENERIC]         = "generic",
    [BITCOS_KERNEL_TQ2ORDER]        = "tq2order",
    [BITCOS_KERNEL_AVX2_TQ2]        = "avx2_tq2",
    [BITCOS_KERNEL_AVX2_NOPDEP_TQ2] = "avx2_nopdep_tq2",
    [BITCOS_KERNEL_AVX512_TQ2]      = "avx512_tq2",
    [BITCOS_KERNEL_AVX2_CLMUL]      = "avx2_clmul",
    [BITCOS_KERNEL_TQ2ORDER_ARM]    = "tq2order_arm",
    [BITCOS_KERNEL_NEON_TQ2]        = "neon_tq2",
};

// The scalar kernel of each order: what a kernel runs as where this build
// lacks its SIMD path.
static const int bitcos_kernel_fallback[BITCOS_KERNEL_COUNT] = {
    [BITCOS_KERNEL_GENERIC]         = BITCOS_KERNEL_GENERIC,
    [BITCOS_KERNEL_TQ2ORDER]        = BITCOS_KERNEL_TQ2ORDER,
    [BITCOS_KERNEL_AVX2_TQ2]        = BITCOS_KERNEL_TQ2ORDER,
    [BITCOS_KERNEL_AVX2_NOPDEP_TQ2] = BITCOS_KERNEL_TQ2ORDER,
    [BITCOS_KERNEL_AVX512_TQ2]      = BITCOS_KERNEL_TQ2ORDER,
    [BITCOS_KERNEL_AVX2_CLMUL]      = BITCOS_KERNEL_TQ2ORDER,
    [BITCOS_KERNEL_TQ2ORDER_ARM]    = BITCOS_KERNEL_TQ2ORDER_ARM,
    [BITCOS_KERNEL_NEON_TQ2]        = BITCOS_KERNEL_TQ2ORDER_ARM,
};

const char * bitcos_kernel_name(int kernel) {
    return kernel >= 0 && kernel < BITCOS_KERNEL_COUNT ? bitcos_kernel_names[kernel] : NULL;
}

int bitcos_kernel_order(int kernel) {
    switch (kernel) {
        case BITCOS_KERNEL_GENERIC:
            return BITCOS_ORDER_EXACT;
        case BITCOS_KERNEL_TQ2ORDER:
        case BITCOS_KERNEL_AVX2_TQ2:
        case BITCOS_KERNEL_AVX2_NOPDEP_TQ2:
        case BITCOS_KERNEL_AVX512_TQ2:
        case BITCOS_KERNEL_AVX2_CLMUL:
            return BITCOS_ORDER_TQ2_X86;
        case BITCOS_KERNEL_TQ2ORDER_ARM:
        case BITCOS_KERNEL_NEON_TQ2:
            return BITCOS_ORDER_TQ2_ARM;
    }
    return -1;
}

int bitcos_slow_pdep(int vendor, int family) {
    return (vendor == BITCOS_VENDOR_AMD || vendor == BITCOS_VENDOR_HYGON) && family < 0x19;
}

static struct bitcos_choice bitcos_choose(int kernel, const char * why) {
    struct bitcos_choice c = { kernel, bitcos_kernel_order(kernel), bitcos_kernel_name(kernel), why, 0, BITCOS_VENDOR_OTHER, 0 };
    return c;
}

static struct bitcos_choice bitcos_choose_forced(int kernel, const char * why) {
    struct bitcos_choice c = bitcos_choose(kernel, why);
    c.forced = 1;
    return c;
}

// Whether kernel k runs with its SIMD path here.
static int bitcos_runs(const struct bitcos_cpu_features * f, int k) {
    if ((f->built >> k & 1u) == 0) {
        return 0;
    }
    return k != BITCOS_KERNEL_AVX2_CLMUL || f->pclmul;
}

static struct bitcos_choice bitcos_select_kernel(const struct bitcos_cpu_features * f, const char * forced) {
    const char * unknown = NULL;
    if (forced != NULL && forced[0] != '\0') {
        for (int k = 0; k < BITCOS_KERNEL_COUNT; ++k) {
            if (strcmp(forced, bitcos_kernel_names[k]) != 0) {
                continue;
            }
            if (bitcos_runs(f, k) || bitcos_kernel_fallback[k] == k) {
                return bitcos_choose_forced(k, "forced by --kernel");
            }
            if (k == BITCOS_KERNEL_AVX2_CLMUL && (f->built >> k & 1u)) {
                return bitcos_choose_forced(BITCOS_KERNEL_TQ2ORDER, "forced avx2_clmul, but this CPU lacks PCLMULQDQ: its scalar fallback of the same order");
            }
            return bitcos_choose_forced(bitcos_kernel_fallback[k], "forced kernel not compiled in this build: its scalar fallback of the same order");
        }
        unknown = "unknown --kernel ignored; default: ";
    }

    const int slow = bitcos_slow_pdep(f->vendor, f->family);
#define BITCOS_PICK(k, why) \
    return bitcos_choose(k, unknown ? "unknown --kernel ignored; default: " why : "default: " why)
    if (bitcos_runs(f, BITCOS_KERNEL_AVX512_TQ2)) {
        BITCOS_PICK(BITCOS_KERNEL_AVX512_TQ2, "AVX-512 build, TQ2_0's x86 float order");
    }
    if (!slow && bitcos_runs(f, BITCOS_KERNEL_AVX2_CLMUL)) {
        BITCOS_PICK(BITCOS_KERNEL_AVX2_CLMUL, "AVX2 build with PCLMULQDQ, TQ2_0's x86 float order");
    }
    if (!slow && bitcos_runs(f, BITCOS_KERNEL_AVX2_TQ2)) {
        BITCOS_PICK(BITCOS_KERNEL_AVX2_TQ2, "AVX2 build without PCLMULQDQ, TQ2_0's x86 float order");
    }
    if (bitcos_runs(f, BITCOS_KERNEL_AVX2_NOPDEP_TQ2)) {
        if (slow) {
            BITCOS_PICK(BITCOS_KERNEL_AVX2_NOPDEP_TQ2, "slow pdep (AMD before Zen 3), TQ2_0's x86 float order");
        }
        BITCOS_PICK(BITCOS_KERNEL_AVX2_NOPDEP_TQ2, "AVX2 build without BMI2, TQ2_0's x86 float order");
    }
    if (bitcos_runs(f, BITCOS_KERNEL_NEON_TQ2)) {
        BITCOS_PICK(BITCOS_KERNEL_NEON_TQ2, "aarch64 build, TQ2_0's NEON float order");
    }
    switch (f->tq2_order) {
        case BITCOS_ORDER_TQ2_X86:
            BITCOS_PICK(BITCOS_KERNEL_TQ2ORDER, "no SIMD kernel in this build; scalar, in the x86 float order of this build's TQ2_0 kernel");
        case BITCOS_ORDER_TQ2_ARM:
            BITCOS_PICK(BITCOS_KERNEL_TQ2ORDER_ARM, "no SIMD kernel in this build; scalar, in the NEON float order of this build's TQ2_0 kernel");
    }
    BITCOS_PICK(BITCOS_KERNEL_GENERIC, "no SIMD kernel in this build; scalar, in the exact order of this build's (generic) TQ2_0 kernel");
#undef BITCOS_PICK
}

struct bitcos_choice bitcos_select(const struct bitcos_cpu_features * f, const char * forced) {
    struct bitcos_choice c = bitcos_select_kernel(f, forced);
    c.vendor = f->vendor;
    c.tq2_0_vnni = f->tq2_0_vnni;
    return c;
}

static const char * const bitcos_layout_names[BITCOS_LAYOUT_COUNT] = {
    [BITCOS_LAYOUT_NATIVE] = "native",
    [BITCOS_LAYOUT_TQ2_0]  = "tq2_0",
};

const char * bitcos_layout_name(int layout) {
    return layout >= 0 && layout < BITCOS_LAYOUT_COUNT ? bitcos_layout_names[layout] : NULL;
}

static struct bitcos_layout_choice bitcos_layout_choose(int layout, const char * why) {
    struct bitcos_layout_choice c = { layout, bitcos_layout_name(layout), why };
    return c;
}

struct bitcos_layout_choice bitcos_select_layout(const struct bitcos_choice * k, const char * forced) {
    const char * unknown = NULL;
    if (forced != NULL && forced[0] != '\0') {
        for (int l = 0; l < BITCOS_LAYOUT_COUNT; ++l) {
            if (strcmp(forced, bitcos_layout_names[l]) == 0) {
                return bitcos_layout_choose(l, "forced by GGML_BITCOS_LAYOUT");
            }
        }
        unknown = "unknown GGML_BITCOS_LAYOUT ignored; ";
    }
#define BITCOS_LAYOUT_PICK(l, why) \
    return bitcos_layout_choose(l, unknown ? "unknown GGML_BITCOS_LAYOUT ignored; " why : why)
    if (k->forced) {
        BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_NATIVE, "--kernel forces a BITCOS kernel");
    }
    if (k->kernel == BITCOS_KERNEL_AVX512_TQ2 && k->tq2_0_vnni && k->vendor == BITCOS_VENDOR_AMD) {
        BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_TQ2_0, "default: on AMD, TQ2_0 blocks with AVX-512 VNNI (tq2_0_vnni) run faster than avx512_tq2's decode");
    }
    if (k->kernel == BITCOS_KERNEL_AVX512_TQ2) {
        BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_NATIVE, "default: avx512_tq2 keeps up with memory and batches run the batched BITCOS kernel");
    }
    switch (k->kernel) {
        case BITCOS_KERNEL_NEON_TQ2:
            BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_TQ2_0, "default: neon_tq2 needs about 4x the instructions of TQ2_0's NEON kernel");
        case BITCOS_KERNEL_GENERIC:
        case BITCOS_KERNEL_TQ2ORDER:
        case BITCOS_KERNEL_TQ2ORDER_ARM:
            BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_TQ2_0, "default: no SIMD BITCOS kernel in this build");
    }
    BITCOS_LAYOUT_PICK(BITCOS_LAYOUT_TQ2_0, "default: without AVX-512 the BITCOS decode is slower than TQ2_0's kernel");
#undef BITCOS_LAYOUT_PICK
}

static const char * const bitcos_device_layout_names[BITCOS_DEVICE_LAYOUT_COUNT] = {
    [BITCOS_DEVICE_NATIVE] = "native",
    [BITCOS_DEVICE_TQ2_0]  = "tq2_0",
    [BITCOS_DEVICE_Q2_0]   = "q2_0",
    [BITCOS_DEVICE_HOST]   = "host",
};

const char * bitcos_device_layout_name(int layout) {
    return layout >= 0 && layout < BITCOS_DEVICE_LAYOUT_COUNT ? bitcos_device_layout_names[layout] : NULL;
}

// whether the device can take the weight in layout l
static int bitcos_device_can(const struct bitcos_device_caps * caps, int group, int l) {
    switch (l) {
        case BITCOS_DEVICE_NATIVE: return caps->native;
        case BITCOS_DEVICE_TQ2_0:  return caps->tq2_0 && (group == 256 || group == 0);
        case BITCOS_DEVICE_Q2_0:   return caps->q2_0 && (group == 64 || group == 256 || group == 0);
        case BITCOS_DEVICE_HOST:   return 1;
        default:                   return 0;
    }
}

struct bitcos_layout_choice bitcos_select_device_layout(const struct bitcos_device_caps * caps, int group,
                                                        const char * forced) {
    int note = 0; // 1: an unknown name; 2: a layout the device cannot take
    if (forced != NULL && forced[0] != '\0') {
        note = 1;
        for (int l = 0; l < BITCOS_DEVICE_LAYOUT_COUNT; ++l) {
            if (strcmp(forced, bitcos_device_layout_names[l]) == 0) {
                if (bitcos_device_can(caps, group, l)) {
                    struct bitcos_layout_choice c = { l, bitcos_device_layout_name(l), "forced by GGML_BITCOS_DEVICE_LAYOUT" };
                    return c;
                }
                note = 2;
            }
        }
    }
#define BITCOS_DEVICE_PICK(l, why) do {                                                                               \
        struct bitcos_layout_choice c = { (l), bitcos_device_layout_name(l),                                          \
            note == 1 ? "unknown GGML_BITCOS_DEVICE_LAYOUT ignored; " why :                                           \
            note == 2 ? "GGML_BITCOS_DEVICE_LAYOUT names a layout this device cannot take for the weight; " why : why }; \
        return c;                                                                                                     \
    } while (0)
    // scales per 64 (Q2_0 sources): the Q2_0 blocks are the source file's
    // own bytes, which a Q2_0 device runs as it runs the Q2_0 file, where a
    // native path would decode them for every product
    if (group == 64 && bitcos_device_can(caps, group, BITCOS_DEVICE_Q2_0)) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_Q2_0, "default: the backend runs Q2_0; the weight's scales are per 64, "
                                               "its Q2_0 blocks the Q2_0 file's bytes");
    }
    if (caps->native) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_NATIVE, "default: the backend runs BITCOS");
    }
    if (group == 0 && bitcos_device_can(caps, group, BITCOS_DEVICE_TQ2_0)) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_TQ2_0, "default: the backend runs TQ2_0; the per-tensor f32 scale rounded to fp16 "
                                                "(relative change at most 2^-11, as a TQ2_0 conversion of the checkpoint stores it)");
    }
    if (group == 0 && bitcos_device_can(caps, group, BITCOS_DEVICE_Q2_0)) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_Q2_0, "default: the backend runs Q2_0; the per-tensor f32 scale rounded to fp16 "
                                               "(relative change at most 2^-11, as a TQ2_0 conversion of the checkpoint stores it)");
    }
    if (bitcos_device_can(caps, group, BITCOS_DEVICE_TQ2_0)) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_TQ2_0, "default: the backend runs TQ2_0; the weight's scales are per 256");
    }
    if (bitcos_device_can(caps, group, BITCOS_DEVICE_Q2_0)) {
        BITCOS_DEVICE_PICK(BITCOS_DEVICE_Q2_0, "default: the backend runs Q2_0");
    }
    BITCOS_DEVICE_PICK(BITCOS_DEVICE_HOST, "default: the backend runs neither BITCOS nor TQ2_0 nor Q2_0; kept on the CPU");
#undef BITCOS_DEVICE_PICK
}
