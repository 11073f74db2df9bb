package format

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/x448/float16"
)

// Ternarize quantizes a float tensor of rows rows of k weights (w holds
// k*rows values, row-major; k % 64 == 0) to ternary with BitNet b1.58's
// absmean rule, one scale per tensor, writing the codes into p (resized) and
// returning the scale s. It is the only lossy input path.
//
// The reference is weight_quant of BitNet's training code, as used by
// llama.cpp's converter (conversion/bitnet.py at the pin) and bitnet.cpp's
// utils/convert-hf-to-gguf-bitnet.py, on weight.float():
//
//	scale = weight.abs().mean().clamp(min=1e-5)
//	iscale = 1 / scale
//	t = (weight * iscale).round().clamp(-1, 1)
//
// Exact float steps here:
//   - s = float32(sum(|w|) / n), the sum and division in float64. PyTorch sums
//     in float32 (vectorized pairwise), so its mean may differ from this
//     correctly rounded one by an ulp; that moves only weights lying exactly
//     on a rounding boundary.
//   - s = max(s, float32(1e-5)) (torch casts the clamp bound to float32).
//   - iscale = float32(1) / s, a float32 division as torch does on a float32
//     0-d tensor.
//   - x = w*iscale rounded to float32 (a single product: no FMA question).
//   - round half to even (torch.round), then clamp to [-1, 1]: t = +1 if
//     x > 0.5, -1 if x < -0.5, else 0 (so |x| == 0.5 gives 0, and 1.5, 2.5
//     give +-1 after the clamp, as half-to-even then clamp does).
//   - NaN weights give 0 (torch would propagate NaN); a NaN anywhere in w
//     makes s NaN and then every weight 0.
//
// The returned scale is s itself (the reference dequantizes t / iscale, which
// may differ from t*s by an ulp). An empty tensor returns float32(1e-5).
// Ternarize panics if len(w) != k*rows or k % 64 != 0.
func Ternarize(w []float32, k, rows int, p *Planes) (scale float32) {
	if k < 0 || rows < 0 || len(w) != k*rows {
		panic(fmt.Sprintf("format: Ternarize: %d values for %d rows of %d", len(w), rows, k))
	}
	p.Reset(k, rows)
	var sum float64
	for _, v := range w {
		sum += math.Abs(float64(v))
	}
	s := float32(sum / float64(len(w)))
	if len(w) == 0 {
		s = 0
	}
	if s < float32(1e-5) { // NaN stays NaN, as with torch.clamp
		s = float32(1e-5)
	}
	inv := float32(1) / s
	for i := 0; i < len(w); i += 64 {
		var pres, neg uint64
		for j, v := range w[i : i+64] {
			x := float32(v * inv) // rounded to float32, never fused
			if x > 0.5 {
				pres |= 1 << j
			} else if x < -0.5 {
				pres |= 1 << j
				neg |= 1 << j
			}
		}
		p.Present[i/64], p.Neg[i/64] = pres, neg
	}
	return s
}

// F16ToF32 converts len(dst) little-endian IEEE half floats from src (which
// must hold at least 2*len(dst) bytes) to float32, exactly.
func F16ToF32(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = float16.Frombits(binary.LittleEndian.Uint16(src[2*i:])).Float32()
	}
}

// BF16ToF32 converts len(dst) little-endian bfloat16 values from src (which
// must hold at least 2*len(dst) bytes) to float32, exactly (bf16 is the top
// half of an f32).
func BF16ToF32(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
	}
}
