package format

import (
	"encoding/binary"
	"math"
)

// Q4KBytes returns the size of n weights in Q4_K (-1 if n is not a
// non-negative multiple of 256).
func Q4KBytes(n int) int { return quantBytes(n, QK_K, Q4KBlockBytes) }

// makeQkx2Quants is make_qkx2_quants with use_mad = false (the form
// quantize_row_q4_K_ref uses): an affine fit x ~ scale*L + min with L in
// [0, nmax], searching nstep+1 candidate scales. It returns scale and -min.
// L and Laux must hold len(x) entries.
func makeQkx2Quants(nmax int32, x, weights []float32, L, Laux []uint8, rmin, rdelta float32, nstep int32) (scale, theMin float32) {
	n := len(x)
	min, max := x[0], x[0]
	sumW := weights[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < n; i++ {
		if x[i] < min {
			min = x[i]
		}
		if x[i] > max {
			max = x[i]
		}
		w := weights[i]
		sumW += w
		sumX += float32(w * x[i])
	}
	if min > 0 {
		min = 0
	}
	if max == min {
		for i := range n {
			L[i] = 0
		}
		return 0, -min
	}
	fnmax := float32(nmax)
	iscale := fnmax / (max - min)
	scale = 1 / iscale
	var bestError float32
	for i := range n {
		l := NearestInt(float32(iscale * (x[i] - min)))
		L[i] = uint8(cMaxI32(0, cMinI32(nmax, l)))
		diff := float32(float32(scale*float32(L[i]))+min) - x[i]
		diff = float32(diff * diff)
		bestError += float32(weights[i] * diff)
	}
	if nstep < 1 {
		return scale, -min
	}
	for is := int32(0); is <= nstep; is++ {
		iscale = (float32(rmin+float32(rdelta*float32(is))) + fnmax) / (max - min)
		var sumL, sumL2, sumXL float32
		for i := range n {
			l := NearestInt(float32(iscale * (x[i] - min)))
			l = cMaxI32(0, cMinI32(nmax, l))
			Laux[i] = uint8(l)
			w := weights[i]
			fl := float32(l)
			wl := float32(w * fl)
			sumL += wl
			sumL2 += float32(wl * fl)
			sumXL += float32(wl * x[i])
		}
		D := float32(sumW*sumL2) - float32(sumL*sumL)
		if D > 0 {
			thisScale := (float32(sumW*sumXL) - float32(sumX*sumL)) / D
			thisMin := (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
			if thisMin > 0 {
				thisMin = 0
				thisScale = sumXL / sumL2
			}
			var curError float32
			for i := range n {
				diff := float32(float32(thisScale*float32(Laux[i]))+thisMin) - x[i]
				diff = float32(diff * diff)
				curError += float32(weights[i] * diff)
			}
			if curError < bestError {
				copy(L[:n], Laux[:n])
				bestError = curError
				scale = thisScale
				min = thisMin
			}
		}
	}
	return scale, -min
}

// getScaleMinK4 is get_scale_min_k4: the j-th 6-bit scale and min of a
// Q4_K/Q5_K block's 12 scale bytes.
func getScaleMinK4(j int, q []byte) (d, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return (q[j+4] & 0xF) | ((q[j-4] >> 6) << 4), (q[j+4] >> 4) | ((q[j-0] >> 6) << 4)
}

// QuantizeQ4K is quantize_row_q4_K_ref: per super-block of 256, eight
// sub-blocks of 32 fitted by make_qkx2_quants(32, 15, ..., -1, 0.1, 20)
// with weights av_x + |x|, 6-bit scales and mins against f16 d and dmin,
// then 4-bit quants (x + dmin*m)/(d*sc).
func QuantizeQ4K(src []float32, dst []byte) {
	checkQuantSizes("QuantizeQ4K", len(src), QK_K, Q4KBlockBytes, len(dst))
	var L [QK_K]uint8
	var Laux [32]uint8
	var weights [32]float32
	var mins, scales [QK_K / 32]float32
	for len(src) > 0 {
		x := src[:QK_K:QK_K]
		y := dst[:Q4KBlockBytes:Q4KBlockBytes]
		ysc, qs := y[4:16], y[16:144]

		var maxScale, maxMin float32
		for j := range QK_K / 32 {
			xs := x[32*j : 32*j+32]
			var sumX2 float32
			for _, v := range xs {
				sumX2 += float32(v * v)
			}
			avX := float32(math.Sqrt(float64(sumX2 / 32)))
			for l, v := range xs {
				weights[l] = avX + absF32(v)
			}
			scales[j], mins[j] = makeQkx2Quants(15, xs, weights[:], L[32*j:32*j+32], Laux[:], -1, 0.1, 20)
			if scales[j] > maxScale {
				maxScale = scales[j]
			}
			if mins[j] > maxMin {
				maxMin = mins[j]
			}
		}

		var invScale, invMin float32
		if maxScale > 0 {
			invScale = 63 / maxScale
		}
		if maxMin > 0 {
			invMin = 63 / maxMin
		}
		for j := range QK_K / 32 {
			ls := uint8(NearestInt(float32(invScale * scales[j])))
			lm := uint8(NearestInt(float32(invMin * mins[j])))
			ls = min(63, ls)
			lm = min(63, lm)
			if j < 4 {
				ysc[j] = ls
				ysc[j+4] = lm
			} else {
				ysc[j+4] = (ls & 0xF) | ((lm & 0xF) << 4)
				ysc[j-4] |= (ls >> 4) << 6
				ysc[j-0] |= (lm >> 4) << 6
			}
		}
		binary.LittleEndian.PutUint16(y[0:], ggmlFP32ToFP16(maxScale/63))
		binary.LittleEndian.PutUint16(y[2:], ggmlFP32ToFP16(maxMin/63))

		d16 := ggmlFP16ToFP32(binary.LittleEndian.Uint16(y[0:]))
		dmin16 := ggmlFP16ToFP32(binary.LittleEndian.Uint16(y[2:]))
		for j := range QK_K / 32 {
			sc, m := getScaleMinK4(j, ysc)
			d := float32(d16 * float32(sc))
			if d == 0 {
				continue
			}
			dm := float32(dmin16 * float32(m))
			for ii := range 32 {
				l := NearestInt((x[32*j+ii] + dm) / d)
				L[32*j+ii] = uint8(cMaxI32(0, cMinI32(15, l)))
			}
		}

		for j := 0; j < QK_K; j += 64 {
			for l := range 32 {
				qs[l] = L[j+l] | L[j+l+32]<<4
			}
			qs = qs[32:]
		}
		src, dst = src[QK_K:], dst[Q4KBlockBytes:]
	}
}

// DequantizeQ4K is dequantize_row_q4_K.
func DequantizeQ4K(src []byte, dst []float32) {
	checkQuantSizes("DequantizeQ4K", len(dst), QK_K, Q4KBlockBytes, len(src))
	for len(dst) > 0 {
		b := src[:Q4KBlockBytes:Q4KBlockBytes]
		d := ggmlFP16ToFP32(binary.LittleEndian.Uint16(b[0:]))
		dmin := ggmlFP16ToFP32(binary.LittleEndian.Uint16(b[2:]))
		sc, q := b[4:16], b[16:144]
		y := dst[:QK_K:QK_K]
		is := 0
		for j := 0; j < QK_K; j += 64 {
			s, m := getScaleMinK4(is+0, sc)
			d1, m1 := float32(d*float32(s)), float32(dmin*float32(m))
			s, m = getScaleMinK4(is+1, sc)
			d2, m2 := float32(d*float32(s)), float32(dmin*float32(m))
			for l := range 32 {
				y[l] = float32(d1*float32(q[l]&0xF)) - m1
			}
			for l := range 32 {
				y[32+l] = float32(d2*float32(q[l]>>4)) - m2
			}
			y = y[64:]
			q = q[32:]
			is += 2
		}
		src, dst = src[Q4KBlockBytes:], dst[QK_K:]
	}
}
