package advise

import (
	"fmt"
	"slices"
)

// ModelSamples is the blocks per tensor FromModel reads (stats --sample):
// enough for z to about ±0.01, a speed model needs no more.
const ModelSamples = 256

// ModelTensor is what FromModel reads of one ternary tensor of a model
// (fields of stats.TensorStats).
type ModelTensor struct {
	Name       string
	Dims       []uint64 // row length first
	Weights    int64
	ScaleBytes int64 // the scales' bytes in the source layout
}

// A ModelReader reads a model's ternary tensors and their mean zero density,
// sampled with the given blocks per tensor. The CLI passes one built on
// repack.StatsWith, which reads whatever `stats` reads; it is a parameter so
// that the advisor does not depend on the repacker.
type ModelReader func(path string, samples int) (tensors []ModelTensor, z float64, err error)

// FromModel sets o's shapes, zero density and scale kind from a model (a
// GGUF file, BITCOS or its source, a safetensors master or a URL: whatever
// read reads), sampled as `stats --sample` does: the distinct shapes of its
// largest ternary matrices with rows of a multiple of 256 weights (at most
// three), the mean zero density of its ternary tensors, a per-tensor f32
// scale if those matrices have one (an I2_S source), and Q2_0 if they have
// fp16 scales per 64 (a Q2_0 source).
func FromModel(path string, read ModelReader, o *Options) error {
	tensors, z, err := read(path, ModelSamples)
	if err != nil {
		return err
	}
	var largest int64
	for _, t := range tensors {
		if len(t.Dims) >= 2 && t.Dims[0]%256 == 0 && t.Weights > largest {
			largest = t.Weights
		}
	}
	if largest == 0 {
		return fmt.Errorf("%s: no ternary matrix with rows of a multiple of 256 weights", path)
	}
	o.Shapes, o.F32, o.Q2_0 = nil, false, false
	q2 := false
	for _, t := range tensors {
		if len(t.Dims) < 2 || t.Dims[0]%256 != 0 || t.Weights != largest {
			continue
		}
		s := Shape{K: int(t.Dims[0]), Rows: int(t.Dims[1])}
		if !slices.Contains(o.Shapes, s) && len(o.Shapes) < 3 {
			o.Shapes = append(o.Shapes, s)
		}
		switch {
		case t.ScaleBytes == 4 && t.Weights > 256:
			o.F32 = true // one f32 for the tensor, not fp16 per 256
		case t.ScaleBytes*128 != t.Weights && !q2:
			q2 = true
			o.Q2_0 = true
			o.Notes = append(o.Notes, fmt.Sprintf("%s has %d scale bytes for %d weights (a Q2_0 source: one scale per 64): the BITCOS kernels above take one fp16 per 256 or one f32 per tensor and are measured with one fp16 per 256; what the series runs for these weights is measured under \"Q2_0 sources\"", t.Name, t.ScaleBytes, t.Weights))
		}
	}
	o.Z, o.ZSource, o.Model = z, "model", path
	group := 256
	switch {
	case o.F32:
		group = 0
	case q2:
		group = 64
	}
	if n := deviceNote(group); n != "" {
		o.Notes = append(o.Notes, n)
	}
	return nil
}
