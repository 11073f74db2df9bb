//go:build cgo

// kernels/c sha256: 6824e2bb6b49dac7ec166dcc7582306483925deb411c3eb2c7f46512fa0a188a
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
