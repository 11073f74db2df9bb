// Package advise measures, on the machine it runs on, whether BITCOS weights
// are multiplied faster in their own layout (the BITCOS kernel that
// bitcos_select picks) or decoded at load into TQ2_0 blocks (the tq2_0
// layout, multiplied by the kernel the loader runs for them), each against
// the TQ2_0 file in stock llama.cpp (ggml's TQ2_0 kernel: the yardstick),
// and sets that against the loader's rule (bitcos_select_layout,
// kernels/c/bitcos_select.h, where the rule is written down once). It backs
// `gguf-bitcos advise`.
//
// The tq2_0 layout's kernel is bitcos_tq2_0_vec_dot_q8_K_vnni
// (kernels/c/bitcos_tq2_0_vnni.c, bit-identical to ggml's x86 TQ2_0 kernel)
// where the rule's choice carries tq2_0_vnni (a native build on a CPU with
// AVX-512 VNNI), as patch 0012 runs it for one column; else ggml's kernel,
// the file's, and then one measurement serves both.
//
// It runs the C kernels of kernels/c through the cgo shims of
// kernels/internal/ckern (and ckern512 for AVX-512), and the TQ2_0 yardstick
// kernels/c/bench/tq2_0.c, on generated ternary rows at a given zero density:
//
//   - read bandwidth per thread count: a streaming read of a buffer much larger
//     than the last-level cache, split between the threads;
//   - each kernel's time per 32 weights with its data in cache (a GEMV of
//     a few hundred distinct rows, about 128 KiB, again and again), per
//     thread count with that many threads running it: the compute term;
//   - batches (prompt processing, batched.go): per distinct K, a matrix of
//     a few hundred rows (cacheRows rounded up to whole groups of 8) times
//     64 Q8_K columns, all in cache, in calls of bitcos_gemm_q8_K on groups
//     of 8 rows (two panels of 4) and the 64 columns, as patch 0012 runs
//     them: the native layout through kernels/c/bitcos_gemm.c with panels
//     decoded from the BITCOS planes (bitcos_gemm_panel; _nopdep where the
//     build's kernel is avx2_nopdep_tq2 alone, as 0012 decides), the tq2_0
//     layout through the same gemm with panels decoded from its TQ2_0
//     blocks (bitcos_gemm_panel_tq2_0; f32 blocks for a per-tensor f32
//     scale, patch 0013), and the TQ2_0 file through ggml's TQ2_0 kernel
//     once per (row, column), as ggml's mul_mat runs it; in ns per 32
//     weights per column per thread, the Ks weighted by the shapes' weights,
//     per thread count with that many threads each running its own loop
//     (as the compute terms), the three alternated round by round. The gemm
//     build is the one the llama.cpp build runs: in a native build the best
//     of AVX-512 VNNI, AVX-512 F+BW, AVX-VNNI and AVX2 this CPU runs, AVX2
//     in an AVX2 build; where the build's TQ2_0 kernel is not in the x86
//     float order (the baseline build, no AVX2 or FMA: 0012's
//     ggml_bitcos_gemm_ok fails) llama.cpp runs no batched kernel and none
//     is measured (Result.Batched.NotRun says why). Before timing, every
//     batch is checked at a few (row, column) pairs against
//     kernels.VecDotQ8KTQ2Order (the gemm's float order) or the reference
//     of the file kernel's order, and the batches that share a float order
//     and scales against each other at every output, bit for bit. The
//     gemm's figures include what ckern's test driver adds (it fills the
//     panel buffer with 0xee before every decode and allocates per call),
//     estimated at a few % of its time, and lack what 0012 adds (the
//     prefetch of the next group's rows, which in cache does nothing).
//   - a GEMV over a stack of model-shaped matrices larger than the last-level
//     cache, every matrix's rows split between the threads as ggml's
//     mul_mat splits them, the native layout, the tq2_0 layout and the TQ2_0
//     file alternated round by round.
//
// and prints per thread count the two-term roofline of DESIGN.md §1,
// T = max(B / β, γ) per 32 weights (B bytes read, β one thread's share of
// the read bandwidth, γ the compute term), as a prediction, beside the
// measured GEMV: each layout's speed relative to the TQ2_0 file, and which
// layout wins; then the batches the same way (the rule's layout is one per
// weight, for single columns and batches alike). Every timing is a median
// over repeats after a warm-up, with the minimum reported beside it as the
// noise.
//
// A model whose weights have fp16 scales per 64 (a Q2_0 source; FromModel
// sets Options.Q2_0) gets one more GEMV over a stack of its shapes: the
// native layout (each row decoded into its Q2_0 blocks per product,
// bitcos_row_to_q2_0) against the Q2_0 blocks made at load (CPU_BITCOS, the
// series' choice on every CPU), both with the Q2_0 x Q8_0 yardstick
// kernels/c/bench/q2_0.c (ggml's generic float steps), alternated round by
// round (Result.Q2_0, q2_0.go).
//
// Without cgo the package compiles and Run returns ErrNeedsCgo.
package advise
