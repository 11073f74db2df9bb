package ggufx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueType is a GGUF metadata value type (gguf-py GGUFValueType).
type ValueType uint32

// GGUF value types.
const (
	ValueUint8   ValueType = 0
	ValueInt8    ValueType = 1
	ValueUint16  ValueType = 2
	ValueInt16   ValueType = 3
	ValueUint32  ValueType = 4
	ValueInt32   ValueType = 5
	ValueFloat32 ValueType = 6
	ValueBool    ValueType = 7
	ValueString  ValueType = 8
	ValueArray   ValueType = 9
	ValueUint64  ValueType = 10
	ValueInt64   ValueType = 11
	ValueFloat64 ValueType = 12
)

// Limits from gguf.cpp.
const (
	MaxStringLength = 1 << 30 // GGUF_MAX_STRING_LENGTH
	MaxArrayLength  = 1 << 30 // GGUF_MAX_ARRAY_ELEMENTS
	// MaxArrayDepth bounds arrays of arrays (gguf.cpp allows none, the
	// GGUF spec and gguf-py allow them; see Parse).
	MaxArrayDepth = 8
)

var valueNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
	"float32", "bool", "string", "array", "uint64", "int64", "float64"}

var valueSizes = [...]int{1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8}

// String returns the type's name ("uint32", "string", ...), or
// "value_type(N)" for an invalid id.
func (t ValueType) String() string {
	if t.Valid() {
		return valueNames[t]
	}
	return "value_type(" + strconv.FormatUint(uint64(t), 10) + ")"
}

// Valid reports whether t is one of the 13 GGUF value types.
func (t ValueType) Valid() bool { return t <= ValueFloat64 }

// Size is the byte size of a fixed-size value, 0 for strings and arrays.
func (t ValueType) Size() int {
	if !t.Valid() {
		return 0
	}
	return valueSizes[t]
}

// minSize is the fewest bytes a value of type t can take.
func (t ValueType) minSize() uint64 {
	switch t {
	case ValueString:
		return 8
	case ValueArray:
		return 12
	}
	return uint64(t.Size())
}

// IsInteger reports whether t is one of the eight integer types.
func (t ValueType) IsInteger() bool {
	switch t {
	case ValueUint8, ValueInt8, ValueUint16, ValueInt16, ValueUint32, ValueInt32, ValueUint64, ValueInt64:
		return true
	}
	return false
}

// KV is one metadata key-value pair. Raw holds the value's bytes exactly as
// stored after the type field: for a string, its u64 length and bytes; for
// an array, its u32 element type, u64 count and elements.
type KV struct {
	Key  string
	Type ValueType
	Raw  []byte
}

// --- the value scanner, shared by the file reader and Raw validation ---

// source supplies bytes to the value scanner.
type source interface {
	// left is the number of bytes still available.
	left() uint64
	// appendN appends exactly n bytes (n <= left()) to dst.
	appendN(dst []byte, n uint64) ([]byte, error)
}

type sliceSource struct{ b []byte }

func (s *sliceSource) left() uint64 { return uint64(len(s.b)) }

func (s *sliceSource) appendN(dst []byte, n uint64) ([]byte, error) {
	if n > uint64(len(s.b)) {
		return dst, fmt.Errorf("need %d bytes, %d left", n, len(s.b))
	}
	dst = append(dst, s.b[:n]...)
	s.b = s.b[n:]
	return dst, nil
}

func need(src source, n uint64, what string) error {
	if l := src.left(); n > l {
		return fmt.Errorf("truncated: %s needs %d bytes, %d left", what, n, l)
	}
	return nil
}

// scanValue reads one value of type t from src, appending its bytes to raw.
// Every length and count is checked against the bytes left before anything
// is allocated.
func scanValue(src source, t ValueType, raw []byte, depth int) ([]byte, error) {
	switch {
	case t == ValueString:
		if err := need(src, 8, "string length"); err != nil {
			return raw, err
		}
		start := len(raw)
		raw, err := src.appendN(raw, 8)
		if err != nil {
			return raw, err
		}
		n := binary.LittleEndian.Uint64(raw[start:])
		if n > MaxStringLength {
			return raw, fmt.Errorf("string length %d exceeds gguf's limit of %d", n, MaxStringLength)
		}
		if l := src.left(); n > l {
			return raw, fmt.Errorf("string length %d exceeds the %d bytes left", n, l)
		}
		return src.appendN(raw, n)
	case t == ValueArray:
		if depth >= MaxArrayDepth {
			return raw, fmt.Errorf("arrays nested deeper than %d", MaxArrayDepth)
		}
		if err := need(src, 12, "array header"); err != nil {
			return raw, err
		}
		start := len(raw)
		raw, err := src.appendN(raw, 12)
		if err != nil {
			return raw, err
		}
		et := ValueType(binary.LittleEndian.Uint32(raw[start:]))
		n := binary.LittleEndian.Uint64(raw[start+4:])
		if !et.Valid() {
			return raw, fmt.Errorf("array has invalid element type %d", uint32(et))
		}
		if n > MaxArrayLength {
			return raw, fmt.Errorf("array of %d elements exceeds gguf's limit of %d", n, MaxArrayLength)
		}
		if l := src.left(); n > l/et.minSize() {
			return raw, fmt.Errorf("array of %d %s elements cannot fit in the %d bytes left", n, et, l)
		}
		if sz := et.Size(); sz > 0 {
			return src.appendN(raw, n*uint64(sz))
		}
		for i := uint64(0); i < n; i++ {
			raw, err = scanValue(src, et, raw, depth+1)
			if err != nil {
				return raw, fmt.Errorf("array element %d: %w", i, err)
			}
		}
		return raw, nil
	case t.Valid():
		sz := uint64(t.Size())
		if err := need(src, sz, t.String()+" value"); err != nil {
			return raw, err
		}
		return src.appendN(raw, sz)
	}
	return raw, fmt.Errorf("invalid value type %d", uint32(t))
}

// Validate checks that Raw holds exactly one well-formed value of Type and
// that the key is not empty.
func (kv KV) Validate() error {
	if kv.Key == "" {
		return fmt.Errorf("empty key")
	}
	return validateValue(kv.Type, kv.Raw)
}

func validateValue(t ValueType, raw []byte) error {
	src := &sliceSource{raw}
	if _, err := scanValue(src, t, nil, 0); err != nil {
		return err
	}
	if n := src.left(); n != 0 {
		return fmt.Errorf("%d bytes after the %s value", n, t)
	}
	return nil
}

// --- constructors ---

func fixedKV(key string, t ValueType, bits uint64) KV {
	raw := make([]byte, t.Size())
	switch len(raw) {
	case 1:
		raw[0] = byte(bits)
	case 2:
		binary.LittleEndian.PutUint16(raw, uint16(bits))
	case 4:
		binary.LittleEndian.PutUint32(raw, uint32(bits))
	case 8:
		binary.LittleEndian.PutUint64(raw, bits)
	}
	return KV{Key: key, Type: t, Raw: raw}
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// KVString is a string value; the bytes of v are stored unchanged.
func KVString(key, v string) KV {
	return KV{Key: key, Type: ValueString, Raw: appendString(nil, v)}
}

// Scalar constructors: the value is stored little-endian in its own type.

func KVUint8(key string, v uint8) KV   { return fixedKV(key, ValueUint8, uint64(v)) }
func KVInt8(key string, v int8) KV     { return fixedKV(key, ValueInt8, uint64(uint8(v))) }
func KVUint16(key string, v uint16) KV { return fixedKV(key, ValueUint16, uint64(v)) }
func KVInt16(key string, v int16) KV   { return fixedKV(key, ValueInt16, uint64(uint16(v))) }
func KVUint32(key string, v uint32) KV { return fixedKV(key, ValueUint32, uint64(v)) }
func KVInt32(key string, v int32) KV   { return fixedKV(key, ValueInt32, uint64(uint32(v))) }
func KVUint64(key string, v uint64) KV { return fixedKV(key, ValueUint64, v) }
func KVInt64(key string, v int64) KV   { return fixedKV(key, ValueInt64, uint64(v)) }
func KVFloat32(key string, v float32) KV {
	return fixedKV(key, ValueFloat32, uint64(math.Float32bits(v)))
}
func KVFloat64(key string, v float64) KV { return fixedKV(key, ValueFloat64, math.Float64bits(v)) }

// KVBool stores true as 1 and false as 0.
func KVBool(key string, v bool) KV {
	var b uint64
	if v {
		b = 1
	}
	return fixedKV(key, ValueBool, b)
}

func arrayHeader(et ValueType, n int, extra int) []byte {
	b := make([]byte, 12, 12+extra)
	binary.LittleEndian.PutUint32(b, uint32(et))
	binary.LittleEndian.PutUint64(b[4:], uint64(n))
	return b
}

// KVStringArray is an array of strings, stored unchanged.
func KVStringArray(key string, v []string) KV {
	size := 0
	for _, s := range v {
		size += 8 + len(s)
	}
	raw := arrayHeader(ValueString, len(v), size)
	for _, s := range v {
		raw = appendString(raw, s)
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}
}

// KVUint8Array is an array of uint8.
func KVUint8Array(key string, v []uint8) KV {
	raw := arrayHeader(ValueUint8, len(v), len(v))
	return KV{Key: key, Type: ValueArray, Raw: append(raw, v...)}
}

// KVInt32Array is an array of int32 (e.g. tokenizer.ggml.token_type).
func KVInt32Array(key string, v []int32) KV {
	raw := arrayHeader(ValueInt32, len(v), 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(x))
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}
}

// KVUint32Array is an array of uint32.
func KVUint32Array(key string, v []uint32) KV {
	raw := arrayHeader(ValueUint32, len(v), 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, x)
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}
}

// KVUint64Array is an array of uint64.
func KVUint64Array(key string, v []uint64) KV {
	raw := arrayHeader(ValueUint64, len(v), 8*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint64(raw, x)
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}
}

// KVFloat32Array is an array of float32 (e.g. tokenizer.ggml.scores).
func KVFloat32Array(key string, v []float32) KV {
	raw := arrayHeader(ValueFloat32, len(v), 4*len(v))
	for _, x := range v {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}
}

// KVArrayOf builds an array whose elements are the values of items (their
// keys are ignored); every item must have type elem. Arrays of arrays are
// built this way (key may be empty for an inner array).
func KVArrayOf(key string, elem ValueType, items []KV) (KV, error) {
	if !elem.Valid() {
		return KV{}, fmt.Errorf("key %q: invalid element type %d", key, uint32(elem))
	}
	size := 0
	for _, it := range items {
		size += len(it.Raw)
	}
	raw := arrayHeader(elem, len(items), size)
	for i, it := range items {
		if it.Type != elem {
			return KV{}, fmt.Errorf("key %q: element %d is %s, not %s", key, i, it.Type, elem)
		}
		raw = append(raw, it.Raw...)
	}
	if err := validateValue(ValueArray, raw); err != nil {
		return KV{}, fmt.Errorf("key %q: %w", key, err)
	}
	return KV{Key: key, Type: ValueArray, Raw: raw}, nil
}

// --- accessors ---

// AsString returns a string value's bytes, unchanged.
func (kv KV) AsString() (string, bool) {
	if kv.Type != ValueString || len(kv.Raw) < 8 {
		return "", false
	}
	n := binary.LittleEndian.Uint64(kv.Raw)
	if n != uint64(len(kv.Raw)-8) {
		return "", false
	}
	return string(kv.Raw[8:]), true
}

// intValue decodes an integer value of any of the eight integer types;
// neg reports a negative signed value (v then holds its two's complement).
func (kv KV) intValue() (v uint64, neg, ok bool) {
	if !kv.Type.IsInteger() || len(kv.Raw) != kv.Type.Size() {
		return 0, false, false
	}
	r := kv.Raw
	switch kv.Type {
	case ValueUint8:
		return uint64(r[0]), false, true
	case ValueInt8:
		x := int64(int8(r[0]))
		return uint64(x), x < 0, true
	case ValueUint16:
		return uint64(binary.LittleEndian.Uint16(r)), false, true
	case ValueInt16:
		x := int64(int16(binary.LittleEndian.Uint16(r)))
		return uint64(x), x < 0, true
	case ValueUint32:
		return uint64(binary.LittleEndian.Uint32(r)), false, true
	case ValueInt32:
		x := int64(int32(binary.LittleEndian.Uint32(r)))
		return uint64(x), x < 0, true
	case ValueUint64:
		return binary.LittleEndian.Uint64(r), false, true
	case ValueInt64:
		x := int64(binary.LittleEndian.Uint64(r))
		return uint64(x), x < 0, true
	}
	return 0, false, false
}

// AsUint64 returns an integer value of any integer type if it is not
// negative.
func (kv KV) AsUint64() (uint64, bool) {
	v, neg, ok := kv.intValue()
	if !ok || neg {
		return 0, false
	}
	return v, true
}

// AsUint32 returns an integer value of any integer type if it is in
// [0, 2^32).
func (kv KV) AsUint32() (uint32, bool) {
	v, ok := kv.AsUint64()
	if !ok || v > math.MaxUint32 {
		return 0, false
	}
	return uint32(v), true
}

// AsInt64 returns an integer value of any integer type if it fits in int64.
func (kv KV) AsInt64() (int64, bool) {
	v, neg, ok := kv.intValue()
	if !ok || (!neg && v > math.MaxInt64) {
		return 0, false
	}
	return int64(v), true
}

// AsFloat64 returns a float32 or float64 value, or an integer value
// converted to float64.
func (kv KV) AsFloat64() (float64, bool) {
	switch {
	case kv.Type == ValueFloat32 && len(kv.Raw) == 4:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(kv.Raw))), true
	case kv.Type == ValueFloat64 && len(kv.Raw) == 8:
		return math.Float64frombits(binary.LittleEndian.Uint64(kv.Raw)), true
	}
	if v, ok := kv.AsInt64(); ok {
		return float64(v), true
	}
	if v, ok := kv.AsUint64(); ok {
		return float64(v), true
	}
	return 0, false
}

// AsBool returns a bool value (any non-zero byte is true, as in gguf.cpp).
func (kv KV) AsBool() (bool, bool) {
	if kv.Type != ValueBool || len(kv.Raw) != 1 {
		return false, false
	}
	return kv.Raw[0] != 0, true
}

// ArrayLen returns an array's element type and count.
func (kv KV) ArrayLen() (ValueType, uint64, bool) {
	if kv.Type != ValueArray || len(kv.Raw) < 12 {
		return 0, 0, false
	}
	return ValueType(binary.LittleEndian.Uint32(kv.Raw)), binary.LittleEndian.Uint64(kv.Raw[4:]), true
}

// Items returns an array's elements as KVs with empty keys (their Raw
// slices share kv.Raw's memory).
func (kv KV) Items() ([]KV, bool) {
	et, n, ok := kv.ArrayLen()
	if !ok || !et.Valid() || n > uint64(len(kv.Raw)-12)/et.minSize() {
		return nil, false
	}
	src := &sliceSource{kv.Raw[12:]}
	items := make([]KV, 0, n)
	for i := uint64(0); i < n; i++ {
		before := src.b
		if _, err := scanValue(src, et, nil, 1); err != nil {
			return nil, false
		}
		used := len(before) - len(src.b)
		items = append(items, KV{Type: et, Raw: before[:used:used]})
	}
	if len(src.b) != 0 {
		return nil, false
	}
	return items, true
}

// StringArray returns an array of strings, each unchanged.
func (kv KV) StringArray() ([]string, bool) {
	et, n, ok := kv.ArrayLen()
	if !ok || et != ValueString || n > uint64(len(kv.Raw)-12)/8 {
		return nil, false
	}
	b := kv.Raw[12:]
	out := make([]string, 0, n)
	for i := uint64(0); i < n; i++ {
		if len(b) < 8 {
			return nil, false
		}
		l := binary.LittleEndian.Uint64(b)
		if l > uint64(len(b)-8) {
			return nil, false
		}
		out = append(out, string(b[8:8+l]))
		b = b[8+l:]
	}
	if len(b) != 0 {
		return nil, false
	}
	return out, true
}

func (kv KV) fixedArray(et ValueType) ([]byte, uint64, bool) {
	t, n, ok := kv.ArrayLen()
	if !ok || t != et || uint64(len(kv.Raw)-12) != n*uint64(et.Size()) {
		return nil, 0, false
	}
	return kv.Raw[12:], n, true
}

// Int32Array returns an array of int32.
func (kv KV) Int32Array() ([]int32, bool) {
	b, n, ok := kv.fixedArray(ValueInt32)
	if !ok {
		return nil, false
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, true
}

// Uint32Array returns an array of uint32.
func (kv KV) Uint32Array() ([]uint32, bool) {
	b, n, ok := kv.fixedArray(ValueUint32)
	if !ok {
		return nil, false
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, true
}

// Float32Array returns an array of float32.
func (kv KV) Float32Array() ([]float32, bool) {
	b, n, ok := kv.fixedArray(ValueFloat32)
	if !ok {
		return nil, false
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, true
}

// String renders the pair for display: strings quoted, arrays as their
// element type and length.
func (kv KV) String() string {
	var sb strings.Builder
	sb.WriteString(kv.Key)
	sb.WriteString(" = ")
	sb.WriteString(kv.ValueString())
	return sb.String()
}

// ValueString renders the value alone (see String).
func (kv KV) ValueString() string {
	switch kv.Type {
	case ValueString:
		if s, ok := kv.AsString(); ok {
			if len(s) > 80 {
				return strconv.Quote(s[:80]) + "..."
			}
			return strconv.Quote(s)
		}
	case ValueArray:
		if et, n, ok := kv.ArrayLen(); ok {
			return fmt.Sprintf("[%d x %s]", n, et)
		}
	case ValueBool:
		if b, ok := kv.AsBool(); ok {
			return strconv.FormatBool(b)
		}
	case ValueFloat32, ValueFloat64:
		if f, ok := kv.AsFloat64(); ok {
			bitSize := 64
			if kv.Type == ValueFloat32 {
				bitSize = 32
			}
			return strconv.FormatFloat(f, 'g', -1, bitSize)
		}
	default:
		if v, ok := kv.AsInt64(); ok {
			return strconv.FormatInt(v, 10)
		}
		if v, ok := kv.AsUint64(); ok {
			return strconv.FormatUint(v, 10)
		}
	}
	return fmt.Sprintf("<invalid %s>", kv.Type)
}
