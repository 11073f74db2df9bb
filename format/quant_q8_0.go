package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Reference quantizers for ggml's Q8_0, Q6_K and Q4_K, used to quantize a
// ternary model's f16/bf16/f32 embedding/output head. They are
// transliterations of quantize_row_{q8_0,q6_K,q4_K}_ref in ggml-quants.c at
// the pin (which llama-quantize reaches through ggml_quantize_chunk ->
// quantize_{q8_0,q6_K,q4_K} when no imatrix is given) and reproduce its
// output byte for byte: every operation is done in float32 in C's order,
// and every product that feeds an addition is written float32(x*y) so that
// Go never fuses it into an FMA (Go may fuse on arm64, ppc64, s390x, riscv64
// and on amd64 with GOAMD64=v3; ggml-base at the pin is built for baseline
// x86-64 without -mfma, so C never fuses). Quantizing row by row or all rows
// at once gives the same bytes: blocks are independent.

// Block geometry (ggml-common.h at the pin).
const (
	// Q8_0Block is the number of weights in a Q8_0 block (QK8_0).
	Q8_0Block = 32
	// Q8_0BlockBytes is sizeof(block_q8_0): ggml_half d; int8_t qs[32].
	Q8_0BlockBytes = 34
	// QK_K is the K-quant super-block size (ggufx.QK_K).
	QK_K = ggufx.QK_K
	// Q6KBlockBytes is sizeof(block_q6_K): uint8_t ql[128]; uint8_t qh[64];
	// int8_t scales[16]; ggml_half d.
	Q6KBlockBytes = 210
	// Q4KBlockBytes is sizeof(block_q4_K): ggml_half d, dmin;
	// uint8_t scales[12]; uint8_t qs[128].
	Q4KBlockBytes = 144
)

// HeadType describes a quantized type the embedding/output head can be
// converted to: an entry of HeadTypes, the one table from a head type's
// name to its ggml type and quantizer. Parse a name once with
// LookupHeadType and carry the HeadType.
type HeadType struct {
	Name       string         // ggml_type_name: "q8_0", "q6_K", "q4_K"
	GGMLType   ggufx.GGMLType // the tensor type id (ggufx.TypeQ8_0, ...)
	Block      int            // weights per block
	BlockBytes int            // bytes per block
	// Quantize quantizes whole blocks: len(src) must be a multiple of
	// Block and len(dst) must be Bytes(len(src)); it panics otherwise.
	Quantize func(src []float32, dst []byte)
	// Dequantize is the inverse (dequantize_row_*): len(dst) must be a
	// multiple of Block and len(src) must be Bytes(len(dst)).
	Dequantize func(src []byte, dst []float32)
}

// Bytes returns the size of n quantized weights, or -1 if n is negative or
// not a multiple of the block size.
func (h HeadType) Bytes(n int) int { return quantBytes(n, h.Block, h.BlockBytes) }

// HeadTypes are the supported head types by ggml_type_name.
var HeadTypes = map[string]HeadType{
	"q8_0": {Name: "q8_0", GGMLType: ggufx.TypeQ8_0, Block: Q8_0Block, BlockBytes: Q8_0BlockBytes,
		Quantize: QuantizeQ8_0, Dequantize: DequantizeQ8_0},
	"q6_K": {Name: "q6_K", GGMLType: ggufx.TypeQ6_K, Block: QK_K, BlockBytes: Q6KBlockBytes,
		Quantize: QuantizeQ6K, Dequantize: DequantizeQ6K},
	"q4_K": {Name: "q4_K", GGMLType: ggufx.TypeQ4_K, Block: QK_K, BlockBytes: Q4KBlockBytes,
		Quantize: QuantizeQ4K, Dequantize: DequantizeQ4K},
}

// LookupHeadType finds a head type by name, case-insensitively ("Q6_K",
// "q6_k" and "q6_K" all work).
func LookupHeadType(name string) (HeadType, bool) {
	for k, h := range HeadTypes {
		if strings.EqualFold(k, name) {
			return h, true
		}
	}
	return HeadType{}, false
}

// HeadTypeOf finds the head type whose ggml type is t.
func HeadTypeOf(t ggufx.GGMLType) (HeadType, bool) {
	for _, h := range HeadTypes {
		if h.GGMLType == t {
			return h, true
		}
	}
	return HeadType{}, false
}

// QuantBytes returns the size of n weights quantized as the named head type,
// or -1 for an unknown type or an n that is not a whole number of blocks.
func QuantBytes(name string, n int) int {
	h, ok := LookupHeadType(name)
	if !ok {
		return -1
	}
	return h.Bytes(n)
}

// Q8_0Bytes returns the size of n weights in Q8_0 (-1 if n is not a
// non-negative multiple of 32).
func Q8_0Bytes(n int) int { return quantBytes(n, Q8_0Block, Q8_0BlockBytes) }

func quantBytes(n, block, blockBytes int) int {
	if n < 0 || n%block != 0 {
		return -1
	}
	return n / block * blockBytes
}

func checkQuantSizes(name string, n, block, blockBytes, bytes int) {
	if want := quantBytes(n, block, blockBytes); want < 0 || bytes != want {
		panic(fmt.Sprintf("format: %s: %d weights (block %d) and %d bytes (want %d)", name, n, block, bytes, want))
	}
}

// NearestInt is ggml's nearest_int (ggml-quants.c), the one copy for this
// project's quantizers (these, and kernels.QuantizeQ8K): round to nearest,
// ties to even, through the float32 magic number 1.5*2^23. Like C it returns
// garbage (not a panic) when |f| > 4194303 or f is not finite; the bits are
// the same as C's.
func NearestInt(f float32) int32 {
	v := f + 12582912 // float32 addition: f is already rounded by the caller
	i := int32(math.Float32bits(v))
	return (i & 0x007fffff) - 0x00400000
}

// ggmlFP32ToFP16 is GGML_FP32_TO_FP16 at the pin (ggml_compute_fp32_to_fp16,
// the portable round-to-nearest-even conversion used by ggml-base): the
// same as F16C/x448 for every non-NaN input; NaN becomes sign|0x7E00.
func ggmlFP32ToFP16(f float32) uint16 {
	if f != f {
		return uint16(math.Float32bits(f)>>16)&0x8000 | 0x7E00
	}
	return float16.Fromfloat32(f).Bits()
}

// ggmlFP16ToFP32 is GGML_FP16_TO_FP32 (exact).
func ggmlFP16ToFP32(h uint16) float32 { return float16.Frombits(h).Float32() }

// cMaxF32 and cMinF32 are C's MAX/MIN macros (a > b ? a : b), which differ
// from Go's max/min for NaN and signed zeros.
func cMaxF32(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func cMaxI32(a, b int32) int32 {
	if a > b {
		return a
	}
	return b
}

func cMinI32(a, b int32) int32 {
	if a < b {
		return a
	}
	return b
}

func absF32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }

// cFloatToInt8 is C's (int8_t) conversion of an already integral float as
// x86-64 GCC compiles it (cvttss2si to 32 bits, then truncation): out of
// range and NaN give 0x80000000, i.e. 0. Only reached for non-finite input.
func cFloatToInt8(f float32) int8 {
	if !(f > -2147483648 && f < 2147483648) {
		return 0
	}
	return int8(int32(f))
}

// QuantizeQ8_0 is quantize_row_q8_0_ref: per block of 32, d = amax/127
// stored as f16, qs[j] = roundf(x[j]*(1/d)) (not using the f16-rounded d).
func QuantizeQ8_0(src []float32, dst []byte) {
	checkQuantSizes("QuantizeQ8_0", len(src), Q8_0Block, Q8_0BlockBytes, len(dst))
	for len(src) > 0 {
		x := src[:Q8_0Block:Q8_0Block]
		y := dst[:Q8_0BlockBytes:Q8_0BlockBytes]
		var amax float32
		for _, v := range x {
			amax = cMaxF32(amax, absF32(v))
		}
		d := amax / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		binary.LittleEndian.PutUint16(y, ggmlFP32ToFP16(d))
		for j, v := range x {
			x0 := float32(v * id)
			// roundf: half away from zero; exact via float64.
			y[2+j] = byte(cFloatToInt8(float32(math.Round(float64(x0)))))
		}
		src, dst = src[Q8_0Block:], dst[Q8_0BlockBytes:]
	}
}

// DequantizeQ8_0 is dequantize_row_q8_0.
func DequantizeQ8_0(src []byte, dst []float32) {
	checkQuantSizes("DequantizeQ8_0", len(dst), Q8_0Block, Q8_0BlockBytes, len(src))
	for len(dst) > 0 {
		d := ggmlFP16ToFP32(binary.LittleEndian.Uint16(src))
		for j := range Q8_0Block {
			dst[j] = float32(int8(src[2+j])) * d
		}
		src, dst = src[Q8_0BlockBytes:], dst[Q8_0Block:]
	}
}
