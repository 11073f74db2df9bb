//go:build cgo

// kernels/c sha256: dd669f19ac99a1aae8dfb5c545c1bef9b07341889b8055a2cebf92c690b0d07a
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
