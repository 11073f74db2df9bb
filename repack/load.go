package repack

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// tensorBuf holds reusable buffers for loading one tensor.
type tensorBuf struct {
	raw, signs, rows, scales []byte
	p                        format.Planes
	s                        format.Scales
}

// loadStock reads stock ternary tensor i of f into b.p and b.s (b.raw keeps
// its bytes). A *format.NotTernaryError is returned wrapped, with file and
// tensor named.
func loadStock(f *input, i int, b *tensorBuf) error {
	t := f.Tensors[i]
	c := format.CodecFor(t.Type)
	if c == nil {
		return fmt.Errorf("%s: tensor %q: %v is not a ternary type", f.Path, t.Name, t.Type)
	}
	k, rows := ggufx.Shape2D(t.Dims)
	if !c.Supports(k) {
		return fmt.Errorf("%s: tensor %q: row length %d does not fit %v", f.Path, t.Name, k, t.Type)
	}
	var err error
	if b.raw, err = f.tensor(i, b.raw); err != nil {
		return err
	}
	if err := c.Decode(b.raw, k, rows, &b.p, &b.s); err != nil {
		return fmt.Errorf("%s: tensor %q (%v): %w", f.Path, t.Name, t.Type, err)
	}
	return checkScales(f.Path, t.Name, &b.s)
}

// loadBitcos reads the BITCOS family of tensor i of f into b.p and b.s.
func loadBitcos(f *input, i int, b *tensorBuf) error {
	fam, err := bitcos.FindFamily(f.File, i)
	if err != nil {
		return err
	}
	t := f.Tensors[i]
	k, rows := ggufx.Shape2D(t.Dims)
	for _, x := range []struct {
		idx int
		buf *[]byte
	}{{fam.Weight, &b.raw}, {fam.Signs, &b.signs}, {fam.Rows, &b.rows}, {fam.Scales, &b.scales}} {
		if *x.buf, err = f.tensor(x.idx, *x.buf); err != nil {
			return err
		}
	}
	if err := format.DecodeBitcos(k, rows, b.raw, b.signs, b.rows, &b.p); err != nil {
		return fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
	}
	sc := f.Tensors[fam.Scales]
	b.s = format.Scales{}
	if sc.Type == ggufx.TypeF32 {
		b.s.F32 = binary.LittleEndian.Uint32(b.scales)
		if kv, ok := f.KV(bitcos.KeyI2STail + t.Name); ok {
			et, n, ok := kv.ArrayLen()
			if !ok || et != ggufx.ValueUint8 || n != ggufx.I2STailBytes-4 || len(kv.Raw) != 12+int(n) {
				return fmt.Errorf("%s: KV %q must be an array of %d uint8", f.Path, kv.Key, ggufx.I2STailBytes-4)
			}
			b.s.Tail = kv.Raw[12:]
		}
	} else {
		b.s.Group = k / int(sc.Dims[0])
		b.s.F16 = make([]uint16, len(b.scales)/2)
		for j := range b.s.F16 {
			b.s.F16[j] = binary.LittleEndian.Uint16(b.scales[2*j:])
		}
	}
	return checkScales(f.Path, t.Name, &b.s)
}

// checkScales returns a *format.BadScaleError for a NaN or infinite scale,
// wrapped with the file and tensor: no quantizer writes one. A stock tensor
// holding one is kept as it is (keptError); a BITCOS file holding one is
// damaged.
func checkScales(path, name string, s *format.Scales) error {
	if err := format.CheckScales(s); err != nil {
		return fmt.Errorf("%s: tensor %q: %w", path, name, err)
	}
	return nil
}

// keptReason says why a stock tensor whose load failed with err is kept in
// its source type as it is (non-ternary codes, a NaN or infinite scale), or
// "" when err is a real error.
func keptReason(err error) string {
	var nt *format.NotTernaryError
	var bs *format.BadScaleError
	switch {
	case errors.As(err, &nt):
		return "not ternary: " + nt.Error()
	case errors.As(err, &bs):
		return bs.Error() + ": kept as it is"
	}
	return ""
}

// scaleBytes encodes s as the BITCOS scales companion's data.
func scaleBytes(s *format.Scales, dst []byte) []byte {
	if s.Group == 0 {
		dst = binary.LittleEndian.AppendUint32(dst[:0], s.F32)
		return dst
	}
	dst = dst[:0]
	for _, h := range s.F16 {
		dst = binary.LittleEndian.AppendUint16(dst, h)
	}
	return dst
}

// equalScales compares two scale sets bit for bit.
func equalScales(a, b *format.Scales) bool {
	if a.Group != b.Group || a.F32 != b.F32 || len(a.F16) != len(b.F16) || !equalTail(a.Tail, b.Tail) {
		return false
	}
	for i := range a.F16 {
		if a.F16[i] != b.F16[i] {
			return false
		}
	}
	return true
}

// equalTail treats a missing tail as all zeros.
func equalTail(a, b []byte) bool {
	at := func(t []byte, i int) byte {
		if i < len(t) {
			return t[i]
		}
		return 0
	}
	for i := 0; i < max(len(a), len(b)); i++ {
		if at(a, i) != at(b, i) {
			return false
		}
	}
	return true
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}
