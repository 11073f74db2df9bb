package format

import "github.com/gguf-bitcos/gguf-bitcos/ggufx"

// stock is every stock ternary layout this project reads and writes back,
// one codec per ggml type: the one table from a ggml type to its codec.
//
// Adding a source type takes three files: its id, name and block size in
// ggufx/types.go; its codec in format/<type>.go (Decode and Encode, and what
// it declares: Type, ScaleGroup, Redundant, and codeSpan when its weights are
// 2-bit codes that CountRowNonZeros can count in place); and its entry here.
// Repack, verify, unpack, stats and gen find it through CodecFor; its tests
// go beside the codec, and registry_test.go checks every entry's
// declarations against ggufx and against its own Decode and Encode.
var stock = [...]Codec{TQ2_0, TQ1_0, Q2_0, I2S}

// CodecFor returns the codec of a stock ternary type, or nil for any other
// type (floats, other quantizations, BITCOS itself).
func CodecFor(t ggufx.GGMLType) Codec {
	for _, c := range stock {
		if c.Type() == t {
			return c
		}
	}
	return nil
}

// StockCodecs returns every registered codec, in registry order.
func StockCodecs() []Codec { return append([]Codec(nil), stock[:]...) }
