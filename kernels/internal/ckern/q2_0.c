//go:build cgo

// One translation unit per kernel file (see ckern.go). The Q2_0 yardstick
// (c/bench/q2_0.c), scalar C at -O3 for the baseline ISA, as ggml's generic
// Q2_0 kernel (the only one x86 has at the pin) is scalar C; multiply and add
// kept apart.
#pragma GCC optimize("O3,fp-contract=off")
#include "../../c/bench/q2_0.c"
