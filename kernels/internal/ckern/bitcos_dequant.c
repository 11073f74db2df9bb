//go:build cgo

#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
