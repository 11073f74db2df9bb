package kernels

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/x448/float16"
)

// CUDA: the Go twins of kernels/cuda/bitcos_cuda.cuh (ggml-cuda's BITCOS x
// Q8_1 mat-vec) and of ggml-cuda's quantize_q8_1, in their float orders.
// kernels/cuda/README.md has the design; kernels/cuda_test.go checks the header
// against these bit for bit on the CPU.

// QK8_1 is the number of activations per block_q8_1, and the number of weights
// one lane of the CUDA kernel takes per step.
const QK8_1 = 32

// cudaLanes is the number of lanes per row (one warp) of the CUDA kernel.
const cudaLanes = 32

// BlockQ8_1 is ggml's block_q8_1 (36 bytes): ds = {d, s} as fp16 bits (d the
// scale, s the sum of the block's floats as ggml-cuda computes it), then the
// quants.
type BlockQ8_1 struct {
	D, S uint16
	Qs   [QK8_1]int8
}

// QuantizeQ8_1CUDA quantizes len(x) (a multiple of 32) activations into
// len(x)/32 blocks as ggml-cuda's quantize_q8_1 kernel (quantize.cu), lane i
// of a 32-wide warp holding x[i]: amax = max |x| and sum = the warp sum of x
// (xor butterfly, offsets 16, 8, 4, 2, 1), d = amax/127, q = roundf(x/d) (half
// away from zero; 0 when amax = 0), ds = {fp16(d), fp16(sum)}, round to
// nearest even. IEEE division is assumed: under -use_fast_math (ggml-cuda's
// default) the device divides approximately and may differ in a rare quant.
func QuantizeQ8_1CUDA(x []float32, y []BlockQ8_1) {
	if len(x)%QK8_1 != 0 || len(y) < len(x)/QK8_1 {
		panic("kernels: QuantizeQ8_1CUDA: bad lengths")
	}
	for b := range len(x) / QK8_1 {
		xb := x[b*QK8_1 : (b+1)*QK8_1]
		var amax float32
		for _, v := range xb {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		var sum [cudaLanes]float32
		copy(sum[:], xb)
		warpReduceSum(&sum)
		d := amax / 127
		for i, v := range xb {
			q := int8(0)
			if amax != 0 {
				q = int8(math.Round(float64(v / d)))
			}
			y[b].Qs[i] = q
		}
		y[b].D = float16.Fromfloat32(d).Bits()
		y[b].S = float16.Fromfloat32(sum[0]).Bits()
	}
}

// warpReduceSum is ggml-cuda's warp_reduce_sum<32>(float): for offset 16, 8,
// 4, 2, 1 every lane adds its xor partner's value, all at once. Float addition
// commutes, so every lane ends with the same value.
func warpReduceSum(v *[cudaLanes]float32) {
	for off := cudaLanes / 2; off > 0; off >>= 1 {
		old := *v
		for l := range v {
			v[l] = old[l] + old[l^off]
		}
	}
}

// CudaMmv is a geometry of the CUDA mat-vec (bitcos_cuda.cuh): Warps warps of
// 32 lanes per row, T = 32 * Warps threads taking the chunks interleaved
// (thread c % T); or, with Segments, one warp whose lane takes a run of
// consecutive chunks per step of 32 * CudaSeg chunks (bitcos_cuda_segment).
type CudaMmv struct {
	Warps    int
	Segments bool
}

// CudaSeg is the segmented geometry's most chunks per lane and step
// (BITCOS_CUDA_SEG).
const CudaSeg = 8

// threads is the number of threads whose sums the row's result adds.
func (g CudaMmv) threads() int {
	if g.Segments {
		return cudaLanes
	}
	return cudaLanes * g.Warps
}

// thread is the thread that takes chunk c of a row of nchunks.
func (g CudaMmv) thread(c, nchunks int) int {
	if !g.Segments {
		return c % g.threads()
	}
	step := cudaLanes * CudaSeg
	s0 := c / step * step
	n := min(step, nchunks-s0)
	for l := range cudaLanes { // lane l's run: [s0 + l*n/32, s0 + (l+1)*n/32)
		if c-s0 < (l+1)*n/cudaLanes {
			return l
		}
	}
	panic("kernels: CudaMmv.thread: chunk past its step")
}

// VecDotQ8_1CUDA is the BITCOS x Q8_1 dot product of one row with one
// activation column in the CUDA kernel's order for geometry g (bitmap,
// signs, d16, d32 as for VecDotQ8K, with group weights per fp16 scale: 256
// for TQ2_0 sources, 64 for Q2_0 ones; y: K/32 blocks):
//
//	chunk c = weights 32c..32c+31, taken by thread g.thread(c), in increasing c
//	sumi_c  = exact int32 sum of t_j * y[c].Qs[j]
//	d       = float32(scale(32c/group) * fp16(y[c].D))  (rounded multiply)
//	thread  = float32(thread + float32(float32(sumi_c) * d)), from +0
//	lane l  = thread l, then + thread 32w + l for w = 1 .. Warps-1, in order
//	result  = warpReduceSum over the 32 lanes (lane 0's value)
//
// The integer part walks the row with one sequential cursor: it shares no code
// with the header's sign windows, nibble table and scans.
func VecDotQ8_1CUDA(bitmap, signs []byte, d16 []uint16, group int, d32 float32, y []BlockQ8_1, g CudaMmv) float32 {
	k := len(bitmap) * 8
	if k%QK_K != 0 || len(y) < k/QK8_1 || (d16 != nil && ((group != QK_K && group != 64) || len(d16) < k/group)) || g.threads() < cudaLanes {
		panic(fmt.Sprintf("kernels: VecDotQ8_1CUDA: %d bitmap bytes, %d blocks, %d scales per %d, %+v", len(bitmap), len(y), len(d16), group, g))
	}
	threads := make([]float32, g.threads())
	pos := 0 // next sign bit
	for c := range k / QK8_1 {
		var sumi int32
		for i, m := range bitmap[c*QK8_1/8 : (c+1)*QK8_1/8] {
			for ; m != 0; m &= m - 1 {
				bit := bits.TrailingZeros8(m)
				v := int32(y[c].Qs[8*i+bit])
				if signs[pos>>3]>>(pos&7)&1 != 0 {
					v = -v
				}
				sumi += v
				pos++
			}
		}
		scale := d32
		if d16 != nil {
			scale = float16.Frombits(d16[c*QK8_1/group]).Float32()
		}
		d := float32(scale * float16.Frombits(y[c].D).Float32())
		l := g.thread(c, k/QK8_1)
		threads[l] = float32(threads[l] + float32(float32(sumi)*d))
	}
	var lanes [cudaLanes]float32
	for l := range lanes {
		lanes[l] = threads[l]
		for w := 1; w < len(threads)/cudaLanes; w++ {
			lanes[l] = float32(lanes[l] + threads[w*cudaLanes+l])
		}
	}
	warpReduceSum(&lanes)
	return lanes[0]
}
