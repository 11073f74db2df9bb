//go:build cgo

// The AVX-512 builds of bitcos_gemm.c (without and with VNNI), run by
// ckern_gemm_drive.
#include "../ckern/gemm_drive.h"

int  bitcos_gemm_isa_avx512(void);
void bitcos_gemm_panel_avx512(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                              const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_nopdep_avx512(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                                   const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_tq2_0_avx512(int n, void * panel, int nr, const void * const * rows, int f32);
void bitcos_gemm_q8_K_avx512(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);
int  bitcos_gemm_isa_avx512_vnni(void);
void bitcos_gemm_panel_avx512_vnni(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                                   const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_nopdep_avx512_vnni(int n, void * panel, int nr, const uint8_t * const * bitmap, const uint8_t * const * signs,
                                   const uint16_t * const * d16, float d32);
void bitcos_gemm_panel_tq2_0_avx512_vnni(int n, void * panel, int nr, const void * const * rows, int f32);
void bitcos_gemm_q8_K_avx512_vnni(int n, int nr, int nc, const void * panel, const void * const * y, float * const * s);

int ckern512_gemm_isa(int vnni) { return vnni ? bitcos_gemm_isa_avx512_vnni() : bitcos_gemm_isa_avx512(); }

void ckern512_gemm(int vnni, int nopdep, int k, int rows, int prows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                   const uint16_t * d16, float d32, int ncols, const void * ys, float * out, uint8_t * panels) {
    if (vnni) {
        ckern_gemm_drive(nopdep ? bitcos_gemm_panel_nopdep_avx512_vnni : bitcos_gemm_panel_avx512_vnni, bitcos_gemm_q8_K_avx512_vnni, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels);
    } else {
        ckern_gemm_drive(nopdep ? bitcos_gemm_panel_nopdep_avx512 : bitcos_gemm_panel_avx512, bitcos_gemm_q8_K_avx512, k, rows, prows, bitmap, signs, off, d16, d32, ncols, ys, out, panels);
    }
}

void ckern512_gemm_tq2_0(int vnni, int k, int rows, int prows, const uint8_t * tq2, int f32, int ncols, const void * ys, float * out, uint8_t * panels) {
    if (vnni) {
        ckern_gemm_drive_tq2_0(bitcos_gemm_panel_tq2_0_avx512_vnni, bitcos_gemm_q8_K_avx512_vnni, k, rows, prows, tq2, f32, ncols, ys, out, panels);
    } else {
        ckern_gemm_drive_tq2_0(bitcos_gemm_panel_tq2_0_avx512, bitcos_gemm_q8_K_avx512, k, rows, prows, tq2, f32, ncols, ys, out, panels);
    }
}
