package kernels

// VecDotQ8KTQ2ARMOrder is BITCOS x Q8_K in the float order of ggml's NEON
// TQ2_0 kernel (ggml_vec_dot_tq2_0_q8_K under __ARM_NEON, with or without
// dotprod; c/bitcos_neon_tq2.c explains): per 256-block b in order, the
// exact integer sumi_b = sum of t_e*q_e, then
//
//	sumf = fma(float32(sumi_b), y[b].D*d_b, sumf)
//
// with one rounding, as GCC and clang contract ggml's `sumf += d * (float)
// sumi` into fmadd on aarch64. It is VecDotQ8K with the multiply and the add
// fused: the two agree on one block and differ in the last bits otherwise.
func VecDotQ8KTQ2ARMOrder(bitmap, signs []byte, d16 []uint16, d32 float32, y []BlockQ8K) float32 {
	var sumf float32
	exactBlocks("VecDotQ8KTQ2ARMOrder", bitmap, signs, d16, d32, y, func(sumi int32, d float32) {
		sumf = fma32(float32(sumi), d, sumf)
	})
	return sumf
}
