// Package kernels holds the BITCOS dot-product kernels against Q8_K
// activations.
//
// The kernels themselves are C, in kernels/c/ (one source of truth, written to
// be copied into the llama.cpp patch series): a generic scalar variant, AVX2 +
// BMI2 (pdep), AVX2 without pdep (for AMD family 0x17, where pdep is
// microcoded), AVX-512 F+BW, and a portable scalar twin of the AVX-512 variant
// that mirrors its lane logic. kernels/c/bitcos.h states the contract and the
// numerics.
//
// This package is the pure-Go reference: VecDotQ8K computes the same float
// steps in the same order (so every C variant must match it bit for bit), and
// QuantizeQ8K is a transliteration of ggml's quantize_row_q8_K_ref for tests.
// The cgo tests (kernels/internal/ckern*, used only from _test files) compile
// kernels/c and check every variant that runs on the machine against
// VecDotQ8K; without cgo the package builds and those tests skip.
package kernels
