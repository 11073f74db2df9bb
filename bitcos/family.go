package bitcos

import (
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Family holds the four tensors of one BITCOS weight, as indices into the
// file's tensors.
type Family struct {
	Weight, Signs, Rows, Scales int
}

// FindFamily locates the companions of BITCOS tensor i of f and checks their
// types and shapes against the weight's.
func FindFamily(f *ggufx.File, i int) (Family, error) {
	w := f.Tensors[i]
	base := CompanionBase(w.Name)
	fam := Family{Weight: i}
	var ok bool
	for _, c := range []struct {
		suffix string
		dst    *int
	}{{SuffixSigns, &fam.Signs}, {SuffixRows, &fam.Rows}, {SuffixScales, &fam.Scales}} {
		if *c.dst, ok = f.Tensor(base + c.suffix); !ok {
			return fam, fmt.Errorf("%s: BITCOS tensor %q has no companion %q", f.Path, w.Name, base+c.suffix)
		}
	}
	k, rows := ggufx.Shape2D(w.Dims)
	s, r, sc := f.Tensors[fam.Signs], f.Tensors[fam.Rows], f.Tensors[fam.Scales]
	bad := func(t ggufx.TensorInfo, want string) error {
		return fmt.Errorf("%s: tensor %q (companion of %q) is %v %v, want %s", f.Path, t.Name, w.Name, t.Type, t.Dims, want)
	}
	if s.Type != ggufx.TypeI8 || len(s.Dims) != 1 {
		return fam, bad(s, "I8, 1-D")
	}
	if r.Type != ggufx.TypeI32 || len(r.Dims) != 1 || r.Dims[0] != uint64(rows+1) {
		return fam, bad(r, fmt.Sprintf("I32 [%d]", rows+1))
	}
	switch sc.Type {
	case ggufx.TypeF32:
		if len(sc.Dims) != 1 || sc.Dims[0] != 1 {
			return fam, bad(sc, "F32 [1] or F16 [K/G, rows]")
		}
	case ggufx.TypeF16:
		if len(sc.Dims) != 2 || sc.Dims[1] != uint64(rows) || sc.Dims[0] == 0 || uint64(k)%sc.Dims[0] != 0 {
			return fam, bad(sc, fmt.Sprintf("F16 [K/G, %d]", rows))
		}
	default:
		return fam, bad(sc, "F32 [1] or F16 [K/G, rows]")
	}
	return fam, nil
}
