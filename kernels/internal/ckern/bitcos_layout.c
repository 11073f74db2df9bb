//go:build cgo

// kernels/c sha256: d7c95c36f3f655aa727a43ed4eae9dca17293b36695c26b1367f790f685d1ead
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
