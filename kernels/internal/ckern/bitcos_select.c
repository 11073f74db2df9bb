//go:build cgo

// kernels/c sha256: ea76f8a8082a45ece8217f62aadf58f631ce104289501f393afeb799b78aedfb
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
