//go:build cgo

// kernels/c sha256: 5bfa9c5afbb5c0138abe81a00365c7e02b0bc7a4224dec0bd2d765f4ae41745f
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
