//go:build cgo

// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
