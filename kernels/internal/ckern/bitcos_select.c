//go:build cgo

// kernels/c sha256: 4bf9fbd62f692a90743074818c7664acb624c51c9328b68367445114197ceb14
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
