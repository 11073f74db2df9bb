//go:build cgo

// kernels/c sha256: b8127b7f37d195fee0c3a1ba8116ef0446f9f55c65760721825332ae2f50ddb6
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
