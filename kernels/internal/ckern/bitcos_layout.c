//go:build cgo

// kernels/c sha256: c955f8c66dc929252020e322ca9e2eca6cca8b630d9f4a2e5f26878d9ddada4f
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
