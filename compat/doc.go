// Package compat holds the checks of this project's files against other
// implementations of GGUF: gguf-parser-go's reading of their metadata, and,
// given a llama.cpp build with the series (GGUF_BITCOS_LLAMA_BIN), the real
// tools run on generated models. It has no API: everything is in its tests.
package compat
