//go:build cgo

// kernels/c sha256: 0ac6d7c0d7bb2d5b5ae299e86829981c7d072aff3d82694cc6777be4f41b8cde
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
