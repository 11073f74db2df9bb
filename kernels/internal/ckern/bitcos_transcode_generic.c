//go:build cgo

// bitcos_transcode.c under other names, on the scalar build of
// bitcos_codes.c (bitcos_codes_generic.c here) and its row-index check
// (bitcos_layout_generic.c).
#define bitcos_row_codes bitcos_row_codes_generic
#define bitcos_check_rows bitcos_check_rows_generic
#define bitcos_row_to_q2_0 bitcos_row_to_q2_0_generic
#define bitcos_to_q2_0 bitcos_to_q2_0_generic
#include "../../c/bitcos_transcode.c"
