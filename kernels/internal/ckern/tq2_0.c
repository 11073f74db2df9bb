//go:build cgo

// kernels/c sha256: 6824e2bb6b49dac7ec166dcc7582306483925deb411c3eb2c7f46512fa0a188a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
