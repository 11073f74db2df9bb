package safetensors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// IndexName is the file that lists the shards of a sharded checkpoint.
const IndexName = "model.safetensors.index.json"

// Index is a sharded checkpoint's index: which shard holds each tensor.
type Index struct {
	Files     []string          // the shards, sorted (the usual NNNNN-of-NNNNN names sort in order)
	WeightMap map[string]string // tensor -> shard
}

// ParseIndex reads an index file's JSON. Shard names must be plain file
// names ending in .safetensors (no directory, no URL syntax): an index
// cannot point a reader outside its own directory.
func ParseIndex(b []byte, name string) (*Index, error) {
	if len(b) > MaxHeaderBytes {
		return nil, fmt.Errorf("%s: index is %d bytes, more than %d", name, len(b), MaxHeaderBytes)
	}
	var raw struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: index: %v", name, err)
	}
	if len(raw.WeightMap) == 0 {
		return nil, fmt.Errorf("%s: index has no weight_map entries", name)
	}
	ix := &Index{WeightMap: raw.WeightMap}
	seen := map[string]bool{}
	for tensor, file := range raw.WeightMap {
		if err := checkShardName(file); err != nil {
			return nil, fmt.Errorf("%s: index: tensor %q: %v", name, tensor, err)
		}
		if !seen[file] {
			seen[file] = true
			ix.Files = append(ix.Files, file)
		}
	}
	sort.Strings(ix.Files)
	return ix, nil
}

func checkShardName(file string) error {
	switch {
	case !strings.HasSuffix(file, ".safetensors"):
		return fmt.Errorf("shard %q is not a .safetensors file", file)
	case strings.ContainsAny(file, "/\\?#%:\x00") || strings.HasPrefix(file, "."):
		return fmt.Errorf("shard %q is not a plain file name in the index's directory", file)
	}
	return nil
}
