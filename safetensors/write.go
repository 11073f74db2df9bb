package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
)

// Data is a tensor to write: its header fields and bytes.
type Data struct {
	Name  string
	DType string
	Shape []uint64
	Bytes []byte
}

// Encode returns a safetensors file holding ts in order (tests, fixtures).
// Like the reference writer it pads the header with spaces to a multiple of
// 8 bytes.
func Encode(ts []Data, metadata map[string]string) ([]byte, error) {
	hdr := map[string]any{}
	if metadata != nil {
		hdr["__metadata__"] = metadata
	}
	var off uint64
	for _, t := range ts {
		if _, dup := hdr[t.Name]; dup {
			return nil, fmt.Errorf("safetensors: tensor %q twice", t.Name)
		}
		shape := t.Shape
		if shape == nil {
			shape = []uint64{}
		}
		hdr[t.Name] = map[string]any{"dtype": t.DType, "shape": shape, "data_offsets": []uint64{off, off + uint64(len(t.Bytes))}}
		off += uint64(len(t.Bytes))
	}
	j, err := json.Marshal(hdr)
	if err != nil {
		return nil, err
	}
	for len(j)%8 != 0 {
		j = append(j, ' ')
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(j)))
	b.Write(j)
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
