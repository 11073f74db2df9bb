package format

import (
	"errors"
	"fmt"
)

// ErrBadScale is wrapped by *BadScaleError: a tensor holds a NaN or infinite
// scale. No quantizer writes one; repack keeps such a tensor in its source
// type (and says so) rather than guess what its weights mean.
var ErrBadScale = errors.New("NaN or infinite scale")

// BadScaleError says which scale is not finite.
type BadScaleError struct {
	Index int    // fp16 scale index in tensor order, or -1 for the per-tensor f32 scale
	Bits  uint32 // the scale's bits
	NaN   bool
}

func (e *BadScaleError) Error() string {
	what := "infinite"
	if e.NaN {
		what = "NaN"
	}
	if e.Index < 0 {
		return fmt.Sprintf("the per-tensor scale is %s (f32 bits %#08x)", what, e.Bits)
	}
	return fmt.Sprintf("scale %d is %s (fp16 bits %#04x)", e.Index, what, e.Bits)
}

func (e *BadScaleError) Unwrap() error { return ErrBadScale }

// CheckScales returns a *BadScaleError for the first NaN or infinite scale
// of s.
func CheckScales(s *Scales) error {
	for j, h := range s.F16 {
		if err := checkF16(j, h); err != nil {
			return err
		}
	}
	if s.Group == 0 {
		return checkF32(s.F32)
	}
	return nil
}

func checkF16(j int, h uint16) error {
	if h&0x7c00 == 0x7c00 {
		return &BadScaleError{Index: j, Bits: uint32(h), NaN: h&0x3ff != 0}
	}
	return nil
}

func checkF32(b uint32) error {
	if b&0x7f800000 == 0x7f800000 {
		return &BadScaleError{Index: -1, Bits: b, NaN: b&0x7fffff != 0}
	}
	return nil
}
