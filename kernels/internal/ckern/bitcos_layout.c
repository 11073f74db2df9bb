//go:build cgo

// kernels/c sha256: da1023978da4c58399babb9ab80ce86e377f7a84914529a016aeef49c8e93703
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
