package safetensors

import (
	"encoding/json"
	"fmt"
)

// ConfigName is the transformers config next to a checkpoint.
const ConfigName = "config.json"

// Config is what stats uses of a transformers config.json: the model type
// and the hyper-parameters of a memory estimate.
type Config struct {
	ModelType         string `json:"model_type"`
	NumHiddenLayers   uint32 `json:"num_hidden_layers"`
	HiddenSize        uint32 `json:"hidden_size"`
	NumAttentionHeads uint32 `json:"num_attention_heads"`
	NumKeyValueHeads  uint32 `json:"num_key_value_heads"`
	IntermediateSize  uint32 `json:"intermediate_size"`
}

// ParseConfig reads a config.json (at most MaxHeaderBytes).
func ParseConfig(b []byte, name string) (*Config, error) {
	if len(b) > MaxHeaderBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %d", name, len(b), MaxHeaderBytes)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads // transformers' default
	}
	return &c, nil
}
