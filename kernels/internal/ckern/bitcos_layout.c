//go:build cgo

// kernels/c sha256: ea76f8a8082a45ece8217f62aadf58f631ce104289501f393afeb799b78aedfb
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
