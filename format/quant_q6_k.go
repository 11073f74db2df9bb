package format

import "encoding/binary"

// groupMaxEps is GROUP_MAX_EPS in ggml-quants.c.
const groupMaxEps = float32(1e-15)

// Q6KBytes returns the size of n weights in Q6_K (-1 if n is not a
// non-negative multiple of 256).
func Q6KBytes(n int) int { return quantBytes(n, QK_K, Q6KBlockBytes) }

// makeQxQuantsRMSE1 is make_qx_quants(n, nmax, x, L, rmse_type=1, qw=NULL),
// the only form quantize_row_q6_K_ref uses (weights w = x*x, plus the
// 18-step scale search). L receives nmax + l with l in [-nmax, nmax-1].
func makeQxQuantsRMSE1(nmax int32, x []float32, L []int8) float32 {
	var max, amax float32
	for _, v := range x {
		if ax := absF32(v); ax > amax {
			amax = ax
			max = v
		}
	}
	if amax < groupMaxEps { // all zero
		for i := range x {
			L[i] = 0
		}
		return 0
	}
	fnmax := float32(nmax)
	iscale := float32(-nmax) / max
	var sumlx, suml2 float32
	for i, v := range x {
		l := NearestInt(float32(iscale * v))
		l = cMaxI32(-nmax, cMinI32(nmax-1, l))
		L[i] = int8(l + nmax)
		w := float32(v * v)
		fl := float32(l)
		sumlx += float32(float32(w*v) * fl)
		suml2 += float32(float32(w*fl) * fl)
	}
	var scale float32
	if suml2 != 0 {
		scale = sumlx / suml2
	}
	best := float32(scale * sumlx)
	for is := int32(-9); is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(fnmax + float32(0.1*float32(is))) / max
		sumlx, suml2 = 0, 0
		for _, v := range x {
			l := NearestInt(float32(iscale * v))
			l = cMaxI32(-nmax, cMinI32(nmax-1, l))
			w := float32(v * v)
			fl := float32(l)
			sumlx += float32(float32(w*v) * fl)
			suml2 += float32(float32(w*fl) * fl)
		}
		if suml2 > 0 && float32(sumlx*sumlx) > float32(best*suml2) {
			for i, v := range x {
				l := NearestInt(float32(iscale * v))
				L[i] = int8(nmax + cMaxI32(-nmax, cMinI32(nmax-1, l)))
			}
			scale = sumlx / suml2
			best = float32(scale * sumlx)
		}
	}
	return scale
}

// QuantizeQ6K is quantize_row_q6_K_ref: per super-block of 256, 16
// sub-block scales from make_qx_quants(16, 32, ..., rmse_type 1), quantized
// to int8 against d = max_scale/-128 (f16), then 6-bit quants x/(d*scale).
func QuantizeQ6K(src []float32, dst []byte) {
	checkQuantSizes("QuantizeQ6K", len(src), QK_K, Q6KBlockBytes, len(dst))
	var L [QK_K]int8
	var scales [QK_K / 16]float32
	for len(src) > 0 {
		x := src[:QK_K:QK_K]
		y := dst[:Q6KBlockBytes:Q6KBlockBytes]
		ql, qh, ysc := y[0:128], y[128:192], y[192:208]

		var maxScale, maxAbsScale float32
		for ib := range QK_K / 16 {
			scale := makeQxQuantsRMSE1(32, x[16*ib:16*ib+16], L[16*ib:16*ib+16])
			scales[ib] = scale
			if as := absF32(scale); as > maxAbsScale {
				maxAbsScale = as
				maxScale = scale
			}
		}

		if maxAbsScale < groupMaxEps {
			clear(y)
			binary.LittleEndian.PutUint16(y[208:], ggmlFP32ToFP16(0))
			src, dst = src[QK_K:], dst[Q6KBlockBytes:]
			continue
		}

		iscale := -128 / maxScale
		binary.LittleEndian.PutUint16(y[208:], ggmlFP32ToFP16(1/iscale))
		for ib := range QK_K / 16 {
			ysc[ib] = byte(int8(cMinI32(127, NearestInt(float32(iscale*scales[ib])))))
		}

		d16 := ggmlFP16ToFP32(binary.LittleEndian.Uint16(y[208:]))
		for j := range QK_K / 16 {
			d := float32(d16 * float32(int8(ysc[j])))
			if d == 0 {
				continue
			}
			for ii := range 16 {
				l := NearestInt(x[16*j+ii] / d)
				l = cMaxI32(-32, cMinI32(31, l))
				L[16*j+ii] = int8(l + 32)
			}
		}

		for j := 0; j < QK_K; j += 128 {
			for l := range 32 {
				q1 := byte(L[j+l+0]) & 0xF
				q2 := byte(L[j+l+32]) & 0xF
				q3 := byte(L[j+l+64]) & 0xF
				q4 := byte(L[j+l+96]) & 0xF
				ql[l+0] = q1 | q3<<4
				ql[l+32] = q2 | q4<<4
				// L is int8_t in C; >> on its (non-negative) values.
				qh[l] = byte(L[j+l]>>4) | byte(L[j+l+32]>>4)<<2 | byte(L[j+l+64]>>4)<<4 | byte(L[j+l+96]>>4)<<6
			}
			ql = ql[64:]
			qh = qh[32:]
		}
		src, dst = src[QK_K:], dst[Q6KBlockBytes:]
	}
}

// DequantizeQ6K is dequantize_row_q6_K.
func DequantizeQ6K(src []byte, dst []float32) {
	checkQuantSizes("DequantizeQ6K", len(dst), QK_K, Q6KBlockBytes, len(src))
	for len(dst) > 0 {
		b := src[:Q6KBlockBytes:Q6KBlockBytes]
		d := ggmlFP16ToFP32(binary.LittleEndian.Uint16(b[208:]))
		ql, qh, sc := b[0:128], b[128:192], b[192:208]
		y := dst[:QK_K:QK_K]
		for n := 0; n < QK_K; n += 128 {
			for l := range 32 {
				is := l / 16
				q1 := int8((ql[l+0]&0xF)|((qh[l]>>0)&3)<<4) - 32
				q2 := int8((ql[l+32]&0xF)|((qh[l]>>2)&3)<<4) - 32
				q3 := int8((ql[l+0]>>4)|((qh[l]>>4)&3)<<4) - 32
				q4 := int8((ql[l+32]>>4)|((qh[l]>>6)&3)<<4) - 32
				y[l+0] = float32(d*float32(int8(sc[is+0]))) * float32(q1)
				y[l+32] = float32(d*float32(int8(sc[is+2]))) * float32(q2)
				y[l+64] = float32(d*float32(int8(sc[is+4]))) * float32(q3)
				y[l+96] = float32(d*float32(int8(sc[is+6]))) * float32(q4)
			}
			y = y[128:]
			ql = ql[64:]
			qh = qh[32:]
			sc = sc[8:]
		}
		src, dst = src[Q6KBlockBytes:], dst[QK_K:]
	}
}
