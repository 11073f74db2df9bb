//go:build cgo

// kernels/c sha256: 6824e2bb6b49dac7ec166dcc7582306483925deb411c3eb2c7f46512fa0a188a
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
