//go:build cgo

// kernels/c sha256: af038f51cf5a28630afe4f1e32733d4f5b564517cd926c635cde53a5cab6a52a
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
