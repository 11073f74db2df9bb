//go:build cgo

// kernels/c sha256: 293ef58fce6670cc59240253c94bb96959bffb60146fc2b483acea331ea794c6
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
