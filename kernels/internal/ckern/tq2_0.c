//go:build cgo

// kernels/c sha256: 5307c1aa96c6b268f0cd91a1ea12ff1b85bf079e76afa7bf275a5ca55a4b225a
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,f16c")
#include "../../c/bench/tq2_0.c"
