//go:build cgo

// kernels/c sha256: 4ace7b89689f457958330c59f93835d763f01d88ec0ac45321cbcec1adb4a148
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
