//go:build cgo

// kernels/c sha256: dd669f19ac99a1aae8dfb5c545c1bef9b07341889b8055a2cebf92c690b0d07a
// One translation unit per kernel file (see ckern.go). Its bitcos_row_codes
// is the AVX2 build of bitcos_codes.c (bitcos_codes.c here).
#include "../../c/bitcos_layout.c"
