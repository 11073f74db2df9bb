//go:build cgo

// kernels/c sha256: dd669f19ac99a1aae8dfb5c545c1bef9b07341889b8055a2cebf92c690b0d07a
// bitcos_layout.c under other names, on the scalar build of bitcos_codes.c
// (bitcos_codes_generic.c here) and with the portable popcount.
#define BITCOS_LAYOUT_SWAR_POPCOUNT 1
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_check_rows bitcos_check_rows_generic
#define bitcos_row_to_tq2_0 bitcos_row_to_tq2_0_generic
#define bitcos_to_tq2_0 bitcos_to_tq2_0_generic
#define bitcos_row_from_tq2_0 bitcos_row_from_tq2_0_generic
#define bitcos_row_presence_tq2_0 bitcos_row_presence_tq2_0_generic
#include "../../c/bitcos_layout.c"
