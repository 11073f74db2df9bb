//go:build cgo

// kernels/c sha256: d7c95c36f3f655aa727a43ed4eae9dca17293b36695c26b1367f790f685d1ead
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
