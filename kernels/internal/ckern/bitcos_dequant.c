//go:build cgo

// kernels/c sha256: bb09912e4fb79dc5b8dbabbd89c71a5d1c160da1016da06da93b4e191c24a6e8
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
