//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_transcode.c"
