//go:build cgo

// kernels/c sha256: c955f8c66dc929252020e322ca9e2eca6cca8b630d9f4a2e5f26878d9ddada4f
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
