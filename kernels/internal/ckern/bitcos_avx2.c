//go:build cgo

// kernels/c sha256: 4384364358d6ee68d38623dd9eed93cc0f6272e087ab22c523217446393ab729
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#pragma GCC target("avx2,bmi2,f16c,popcnt")
#include "../../c/bitcos_avx2.c"
