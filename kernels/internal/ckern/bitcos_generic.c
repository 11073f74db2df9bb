//go:build cgo

// kernels/c sha256: b632870ee0b6b34c65444f3672ee37819841cd4dcb1777891959797732e0e211
// One translation unit per kernel file (see ckern.go for why the ISA and the
// no-FMA rule are pragmas here rather than cgo flags).
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_generic.c"
