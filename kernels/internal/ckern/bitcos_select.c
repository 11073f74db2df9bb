//go:build cgo

// kernels/c sha256: 4384364358d6ee68d38623dd9eed93cc0f6272e087ab22c523217446393ab729
// One translation unit per kernel file (see ckern.go).
#include "../../c/bitcos_select.c"
