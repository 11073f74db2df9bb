//go:build cgo

// kernels/c sha256: 72dfa6550d2ccf0e23070cf8d9e5f1649b3eba5579b8dab5b786ae907911dbcd
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
