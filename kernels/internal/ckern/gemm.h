#pragma once
#include <stdint.h>

// The builds of bitcos_gemm.c in this package.
enum { CKERN_GEMM_GENERIC, CKERN_GEMM_AVX2, CKERN_GEMM_AVX2_VNNI };
int  ckern_gemm_isa(int build);
void ckern_gemm(int build, int nopdep, int k, int rows, int prows, const uint8_t * bitmap, const uint8_t * signs, const uint32_t * off,
                const uint16_t * d16, float d32, int ncols, const void * ys, float * out, uint8_t * panels);
// The same with the panels decoded from TQ2_0 rows (bitcos_gemm_panel_tq2_0):
// row r's k/256 blocks at tq2 + r*(k/256)*66.
void ckern_gemm_tq2_0(int build, int k, int rows, int prows, const uint8_t * tq2, int f32, int ncols, const void * ys, float * out, uint8_t * panels);
