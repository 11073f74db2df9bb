//go:build cgo

// kernels/c sha256: b03951798ba8d6f7e71e5f9952b3ba3d7f73bafde5745fd0a884ee3e432a05fd
#pragma GCC optimize("fp-contract=off")
#include "../../c/bitcos_dequant.c"
