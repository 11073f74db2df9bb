//go:build cgo

// kernels/c sha256: bb09912e4fb79dc5b8dbabbd89c71a5d1c160da1016da06da93b4e191c24a6e8
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
