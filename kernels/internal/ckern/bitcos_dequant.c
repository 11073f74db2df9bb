//go:build cgo

// kernels/c sha256: 7310b720b050f6580c0aff6b8edf5f1bea15cf3229c24ca93b8946591d9a068f
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
