//go:build !amd64 || noasm

package format

// Pure-Go dispatch of the 2-bit decoders (see decode_amd64.go).

const useAVX2 = false

func decodeTQ2(pres, neg []uint64, src []byte) bool { return decodeTQ2Generic(pres, neg, src) }
func decodeI2S(pres, neg []uint64, src []byte) bool { return decodeI2SGeneric(pres, neg, src) }
func decodeQ2(pres, neg []uint64, src []byte) bool  { return decodeQ2Generic(pres, neg, src) }
