//go:build cgo

// kernels/c sha256: 5e3ec548e1017cc276eb3bd8f82abfddff051b231244f21d2ffbb0d1571c71b4
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
