//go:build cgo

// kernels/c sha256: d7c95c36f3f655aa727a43ed4eae9dca17293b36695c26b1367f790f685d1ead
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
