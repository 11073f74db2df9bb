//go:build cgo

// kernels/c sha256: 7b493ee758089861a1bea961abd4127911e0e5e744460af945758c53579c306a
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
