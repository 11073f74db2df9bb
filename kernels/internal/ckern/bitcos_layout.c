//go:build cgo

// kernels/c sha256: f2b7c1320a2ab6570f10d401882df0b3c87f163aa240212849fe01d0727703fe
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
