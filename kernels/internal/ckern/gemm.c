//go:build cgo

// The builds of bitcos_gemm.c in this package, run by ckern_gemm_drive.
#include "gemm_drive.h"
#include "gemm.h"

int  bitcos_gemm_isa_generic(void);
void bitcos_gemm_panel_generic(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                               const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_nopdep_generic(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_tq2_0_generic(int n, void * panel, int nr, const void * const * rows, int f32);
void bitcos_gemm_q8_K_generic(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);
int  bitcos_gemm_isa_avx2(void);
void bitcos_gemm_panel_avx2(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                            const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_nopdep_avx2(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_tq2_0_avx2(int n, void * panel, int nr, const void * const * rows, int f32);
void bitcos_gemm_q8_K_avx2(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);
int  bitcos_gemm_isa_avx2_vnni(void);
void bitcos_gemm_panel_avx2_vnni(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                                 const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_nopdep_avx2_vnni(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_tq2_0_avx2_vnni(int n, void * panel, int nr, const void * const * rows, int f32);
void bitcos_gemm_q8_K_avx2_vnni(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);

int ckern_gemm_isa(int build) {
    switch (build) {
        case CKERN_GEMM_AVX2:      return bitcos_gemm_isa_avx2();
        case CKERN_GEMM_AVX2_VNNI: return bitcos_gemm_isa_avx2_vnni();
    }
    return bitcos_gemm_isa_generic();
}

void ckern_gemm(int build, int nopdep, int k, int rows, int prows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                const uint16_t * d16, float d32, int ncols, const void * ys, float * out, uint8_t * panels) {
    switch (build) {
        case CKERN_GEMM_AVX2:
            ckern_gemm_drive(nopdep ? bitcos_gemm_panel_nopdep_avx2 : bitcos_gemm_panel_avx2, bitcos_gemm_q8_K_avx2, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels);
            break;
        case CKERN_GEMM_AVX2_VNNI:
            ckern_gemm_drive(nopdep ? bitcos_gemm_panel_nopdep_avx2_vnni : bitcos_gemm_panel_avx2_vnni, bitcos_gemm_q8_K_avx2_vnni, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels);
            break;
        default:
            ckern_gemm_drive(nopdep ? bitcos_gemm_panel_nopdep_generic : bitcos_gemm_panel_generic, bitcos_gemm_q8_K_generic, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels);
    }
}

void ckern_gemm_tq2_0(int build, int k, int rows, int prows, const uint8_t * tq2, int f32, int ncols, const void * ys, float * out, uint8_t * panels) {
    switch (build) {
        case CKERN_GEMM_AVX2:
            ckern_gemm_drive_tq2_0(bitcos_gemm_panel_tq2_0_avx2, bitcos_gemm_q8_K_avx2, k, rows, prows, tq2, f32, ncols, ys, out, panels);
            break;
        case CKERN_GEMM_AVX2_VNNI:
            ckern_gemm_drive_tq2_0(bitcos_gemm_panel_tq2_0_avx2_vnni, bitcos_gemm_q8_K_avx2_vnni, k, rows, prows, tq2, f32, ncols, ys, out, panels);
            break;
        default:
            ckern_gemm_drive_tq2_0(bitcos_gemm_panel_tq2_0_generic, bitcos_gemm_q8_K_generic, k, rows, prows, tq2, f32, ncols, ys, out, panels);
    }
}
