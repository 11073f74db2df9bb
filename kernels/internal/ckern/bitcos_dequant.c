//go:build cgo

// kernels/c sha256: 3c863a1905cbbafdd4a5b5e8ff3be8df69e54f16130aecc567ba85bf8e266277
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
