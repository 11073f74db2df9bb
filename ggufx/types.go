// Package ggufx reads and writes GGUF files (versions 2 and 3,
// little-endian) byte for byte: metadata values are kept as the exact bytes
// stored in the file, so a file read and written again is identical.
//
// The rules follow ggml/src/gguf.cpp at the pinned llama.cpp commit; the
// few places where this package is stricter or more lenient are listed in
// the comments of Parse and NewWriter.
package ggufx

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// GGMLType is a ggml tensor type id as stored in a GGUF tensor info.
type GGMLType uint32

// Tensor types. Ids 0–35 and 39–42 are upstream ggml at the pinned commit
// (ggml/include/ggml.h); 36 is the BitNet fork's I2_S (upstream's removed
// IQ4_NL_4_4); 96 is this project's BITCOS presence bitmap (docs/FORMAT.md).
// Ids 4, 5, 31–33, 37 and 38 are removed upstream and unknown here.
const (
	TypeF32     GGMLType = 0
	TypeF16     GGMLType = 1
	TypeQ4_0    GGMLType = 2
	TypeQ4_1    GGMLType = 3
	TypeQ5_0    GGMLType = 6
	TypeQ5_1    GGMLType = 7
	TypeQ8_0    GGMLType = 8
	TypeQ8_1    GGMLType = 9
	TypeQ2_K    GGMLType = 10
	TypeQ3_K    GGMLType = 11
	TypeQ4_K    GGMLType = 12
	TypeQ5_K    GGMLType = 13
	TypeQ6_K    GGMLType = 14
	TypeQ8_K    GGMLType = 15
	TypeIQ2_XXS GGMLType = 16
	TypeIQ2_XS  GGMLType = 17
	TypeIQ3_XXS GGMLType = 18
	TypeIQ1_S   GGMLType = 19
	TypeIQ4_NL  GGMLType = 20
	TypeIQ3_S   GGMLType = 21
	TypeIQ2_S   GGMLType = 22
	TypeIQ4_XS  GGMLType = 23
	TypeI8      GGMLType = 24
	TypeI16     GGMLType = 25
	TypeI32     GGMLType = 26
	TypeI64     GGMLType = 27
	TypeF64     GGMLType = 28
	TypeIQ1_M   GGMLType = 29
	TypeBF16    GGMLType = 30
	TypeTQ1_0   GGMLType = 34
	TypeTQ2_0   GGMLType = 35
	TypeI2_S    GGMLType = 36 // BitNet fork; upstream's removed IQ4_NL_4_4
	TypeMXFP4   GGMLType = 39
	TypeNVFP4   GGMLType = 40
	TypeQ1_0    GGMLType = 41
	TypeQ2_0    GGMLType = 42
	TypeBITCOS  GGMLType = 96
)

// I2STailBytes is the size of the tail after an I2_S tensor's 2-bit codes
// (its first 4 bytes hold the f32 per-tensor scale).
const I2STailBytes = 32

type typeTraits struct {
	name  string
	block int // weights per block
	size  int // bytes per block
}

// QK_K is ggml's K-quant super-block size (ggml-common.h): the block of the
// K-quants, TQ1_0, TQ2_0 and the Q8_K activations. The one definition in Go;
// format.QK_K and kernels.QK_K name it, kernels/c/bitcos.h's BITCOS_QK_K is
// the C one.
const QK_K = 256

// typeTable mirrors type_traits in ggml/src/ggml.c (names, block and type
// sizes from ggml-common.h), plus I2_S and BITCOS.
var typeTable = map[GGMLType]typeTraits{
	TypeF32:     {"f32", 1, 4},
	TypeF16:     {"f16", 1, 2},
	TypeQ4_0:    {"q4_0", 32, 2 + 16},
	TypeQ4_1:    {"q4_1", 32, 2 + 2 + 16},
	TypeQ5_0:    {"q5_0", 32, 2 + 4 + 16},
	TypeQ5_1:    {"q5_1", 32, 2 + 2 + 4 + 16},
	TypeQ8_0:    {"q8_0", 32, 2 + 32},
	TypeQ8_1:    {"q8_1", 32, 4 + 4 + 32},
	TypeQ2_K:    {"q2_K", QK_K, 2 + 2 + QK_K/16 + QK_K/4},
	TypeQ3_K:    {"q3_K", QK_K, 2 + QK_K/4 + QK_K/8 + 12},
	TypeQ4_K:    {"q4_K", QK_K, 2 + 2 + QK_K/2 + 12},
	TypeQ5_K:    {"q5_K", QK_K, 2 + 2 + QK_K/2 + QK_K/8 + 12},
	TypeQ6_K:    {"q6_K", QK_K, 2 + QK_K/2 + QK_K/4 + QK_K/16},
	TypeQ8_K:    {"q8_K", QK_K, 4 + QK_K + QK_K/8},
	TypeIQ2_XXS: {"iq2_xxs", QK_K, 2 + QK_K/4},
	TypeIQ2_XS:  {"iq2_xs", QK_K, 2 + QK_K/4 + QK_K/32},
	TypeIQ3_XXS: {"iq3_xxs", QK_K, 2 + QK_K/4 + QK_K/8},
	TypeIQ1_S:   {"iq1_s", QK_K, 2 + QK_K/8 + QK_K/16},
	TypeIQ4_NL:  {"iq4_nl", 32, 2 + 16},
	TypeIQ3_S:   {"iq3_s", QK_K, 2 + QK_K/4 + QK_K/8 + QK_K/32 + 4},
	TypeIQ2_S:   {"iq2_s", QK_K, 2 + QK_K/4 + QK_K/16},
	TypeIQ4_XS:  {"iq4_xs", QK_K, 2 + 2 + QK_K/2 + QK_K/64},
	TypeI8:      {"i8", 1, 1},
	TypeI16:     {"i16", 1, 2},
	TypeI32:     {"i32", 1, 4},
	TypeI64:     {"i64", 1, 8},
	TypeF64:     {"f64", 1, 8},
	TypeIQ1_M:   {"iq1_m", QK_K, QK_K/8 + QK_K/16 + QK_K/32},
	TypeBF16:    {"bf16", 1, 2},
	TypeTQ1_0:   {"tq1_0", QK_K, 2 + 4*13},
	TypeTQ2_0:   {"tq2_0", QK_K, 2 + 64},
	// BitNet fork: traits say 1 weight / 1 byte, ggml_nbytes special-cases
	// the size as n/4 + 32 (see TensorBytes).
	TypeI2_S:   {"i2_s", 1, 1},
	TypeMXFP4:  {"mxfp4", 32, 1 + 16},
	TypeNVFP4:  {"nvfp4", 64, 4 + 32},
	TypeQ1_0:   {"q1_0", 128, 2 + 16},
	TypeQ2_0:   {"q2_0", 64, 2 + 16},
	TypeBITCOS: {"bitcos", 128, 16},
}

// String returns ggml's type name ("f32", "q4_K", "tq2_0", "i2_s",
// "bitcos"), or "type(N)" for an unknown id.
func (t GGMLType) String() string {
	if tr, ok := typeTable[t]; ok {
		return tr.name
	}
	return "type(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// Known reports whether t is a type this package can size.
func (t GGMLType) Known() bool {
	_, ok := typeTable[t]
	return ok
}

// BlockSize is the number of weights per block (0 for unknown types).
func (t GGMLType) BlockSize() int { return typeTable[t].block }

// TypeSize is the number of bytes per block (0 for unknown types). For
// I2_S it is the fork's nominal 1; use TensorBytes for real sizes.
func (t GGMLType) TypeSize() int { return typeTable[t].size }

// ParseGGMLType returns the type with the given ggml name (case-insensitive,
// e.g. "TQ2_0", "q4_k", "bitcos").
func ParseGGMLType(name string) (GGMLType, bool) {
	for t, tr := range typeTable {
		if strings.EqualFold(tr.name, name) {
			return t, true
		}
	}
	return 0, false
}

// KnownTypes returns every known type id in increasing order.
func KnownTypes() []GGMLType {
	var ts []GGMLType
	for t := GGMLType(0); t <= TypeBITCOS; t++ {
		if t.Known() {
			ts = append(ts, t)
		}
	}
	return ts
}

// Elements returns the product of dims, or an error if it does not fit in
// int64 (ggml counts elements in int64). An empty dims is one element (a
// scalar, n_dims 0 in a file).
func Elements(dims []uint64) (uint64, error) {
	n := uint64(1)
	for i, d := range dims {
		if d > math.MaxInt64 {
			return 0, fmt.Errorf("dimension %d is %d, larger than int64", i, d)
		}
		hi, lo := bits.Mul64(n, d)
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("shape %v has more than 2^63-1 elements", dims)
		}
		n = lo
	}
	return n, nil
}

// Shape2D folds a tensor's dims into (row length, rows): dims[0] and the
// product of the others. dims must not be empty.
func Shape2D(dims []uint64) (k, rows int) {
	k = int(dims[0])
	rows = 1
	for _, d := range dims[1:] {
		rows *= int(d)
	}
	return
}

// TensorBytes returns the data size of a tensor of type t and shape dims
// (ne0 first), checking that the type is known, every dimension is at least
// 1, the element count fits in int64, ne0 is a multiple of the block size,
// and the byte size fits in uint64.
//
// I2_S (BitNet fork) is n/4 + 32 bytes over the flat tensor. BITCOS is 16
// bytes per 128 weights.
func TensorBytes(t GGMLType, dims []uint64) (uint64, error) {
	tr, ok := typeTable[t]
	if !ok {
		return 0, fmt.Errorf("unknown ggml type id %d", uint32(t))
	}
	for i, d := range dims {
		if d == 0 {
			return 0, fmt.Errorf("dimension %d is 0", i)
		}
	}
	n, err := Elements(dims)
	if err != nil {
		return 0, err
	}
	ne0 := uint64(1)
	if len(dims) > 0 {
		ne0 = dims[0]
	}
	if ne0%uint64(tr.block) != 0 {
		return 0, fmt.Errorf("row length ne0 = %d is not a multiple of %s's block size %d", ne0, t, tr.block)
	}
	if t == TypeI2_S {
		return n/4 + I2STailBytes, nil
	}
	hi, lo := bits.Mul64(n/uint64(tr.block), uint64(tr.size))
	if hi != 0 {
		return 0, fmt.Errorf("size in bytes of shape %v overflows uint64", dims)
	}
	return lo, nil
}

// RowBytes returns the bytes of one row of ne0 weights of type t (not
// meaningful for I2_S, whose rows are not separately addressable).
func RowBytes(t GGMLType, ne0 uint64) (uint64, error) {
	if t == TypeI2_S {
		return 0, fmt.Errorf("i2_s has no per-row size")
	}
	return TensorBytes(t, []uint64{ne0})
}
