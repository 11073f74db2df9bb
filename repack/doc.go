// Package repack rewrites ternary GGUF files as BITCOS (docs/FORMAT.md),
// proves a rewrite lossless (Verify) and reports what a rewrite would gain
// (Stats).
package repack
