//go:build cgo

// kernels/c sha256: e1cb61e8656b179acaacba6afc6a55c7b47c2aacc4f6ea7da5bd4a8e29943122
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
