package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
)

// Data is a tensor to write: its header fields and, for Encode, its bytes.
type Data struct {
	Name  string
	DType string
	Shape []uint64
	Bytes []byte
}

// size is the tensor's byte count from its shape and dtype.
func (t Data) size() (uint64, error) {
	n := uint64(DTypeSize(t.DType))
	if n == 0 {
		return 0, fmt.Errorf("safetensors: tensor %q: unknown dtype %q", t.Name, t.DType)
	}
	for _, d := range t.Shape {
		n *= d
	}
	if t.Bytes != nil && uint64(len(t.Bytes)) != n {
		return 0, fmt.Errorf("safetensors: tensor %q: %d bytes for %v %s (%d)", t.Name, len(t.Bytes), t.Shape, t.DType, n)
	}
	return n, nil
}

// EncodeHeader returns the length prefix and JSON header of a file holding
// ts in order; the tensors' bytes follow it in that order. Like the
// reference writer it pads the JSON with spaces to a multiple of 8 bytes.
func EncodeHeader(ts []Data, metadata map[string]string) ([]byte, error) {
	hdr := map[string]any{}
	if metadata != nil {
		hdr["__metadata__"] = metadata
	}
	var off uint64
	for _, t := range ts {
		if _, dup := hdr[t.Name]; dup {
			return nil, fmt.Errorf("safetensors: tensor %q twice", t.Name)
		}
		n, err := t.size()
		if err != nil {
			return nil, err
		}
		shape := t.Shape
		if shape == nil {
			shape = []uint64{}
		}
		hdr[t.Name] = map[string]any{"dtype": t.DType, "shape": shape, "data_offsets": []uint64{off, off + n}}
		off += n
	}
	j, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	for len(j)%8 != 0 {
		j = append(j, ' ')
	}
	return append(binary.LittleEndian.AppendUint64(nil, uint64(len(j))), j...), nil
}

// Encode returns a whole safetensors file holding ts in order.
func Encode(ts []Data, metadata map[string]string) ([]byte, error) {
	h, err := EncodeHeader(ts, metadata)
	if err != nil {
		return nil, err
	}
	b := bytes.NewBuffer(h)
	for _, t := range ts {
		b.Write(t.Bytes)
	}
	return b.Bytes(), nil
}

// WriteFile encodes ts into path.
func WriteFile(path string, ts []Data, metadata map[string]string) error {
	b, err := Encode(ts, metadata)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// EncodeIndex returns an index file mapping each tensor to its shard.
func EncodeIndex(weightMap map[string]string, totalSize int64) ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"metadata":   map[string]any{"total_size": totalSize},
		"weight_map": weightMap,
	}, "", "  ")
}
