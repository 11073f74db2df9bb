// Package kernels holds the BITCOS dot-product kernels against Q8_K
// activations.
//
// The kernels themselves are C, in kernels/c/ (one source of truth, written to
// be copied into the llama.cpp patch series), in two float orders:
//   - the order of ggml's x86 TQ2_0 kernel, which the patch picks first (a
//     BITCOS file then computes the bits of its TQ2_0 source): AVX-512
//     (avx512_tq2), AVX2 + PCLMULQDQ (avx2_clmul), AVX2 + BMI2 (avx2_tq2),
//     AVX2 without pdep (avx2_nopdep_tq2), the scalar definition (tq2order),
//     and the batch path that decodes a row to TQ2_0 codes once (codes);
//   - the exact order of ggml's generic TQ2_0 kernel: generic scalar, AVX2 +
//     BMI2 (pdep), AVX2 without pdep (for CPUs where pdep is microcoded),
//     AVX-512 F+BW, and a portable scalar twin of the AVX-512 one that mirrors
//     its lane logic.
//
// kernels/c/bitcos.h states the contract and the numerics,
// kernels/c/bitcos_tq2fast.h the TQ2_0 order.
//
// This package is the pure-Go reference: VecDotQ8K and VecDotQ8KTQ2Order
// compute the same float steps in the same order as each family (every C
// variant must match its own bit for bit), and QuantizeQ8K is a
// transliteration of ggml's quantize_row_q8_K_ref for tests.
// The cgo tests (kernels/internal/ckern*, used only from _test files) compile
// kernels/c and check every variant that runs on the machine against
// VecDotQ8K; without cgo the package builds and those tests skip.
package kernels
