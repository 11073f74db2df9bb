package modelgen

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/x448/float16"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
)

// tensor is one planned tensor of the model.
type tensor struct {
	info ggufx.TensorInfo
	kind int // what fills it
	// for ternary tensors: rows to force to zero (dead neurons, zero rows)
	zeroRows []int
}

const (
	kindNorm = iota
	kindScale
	kindEmbed
	kindTernary
	kindFloatOdd
	kindRouter // an MoE router: N(0, routerScale^2)
)

// isMaster reports whether Spec.Type names a float master (the other types
// it may name are the stock ternary ones, format.CodecFor).
func isMaster(t ggufx.GGMLType) bool {
	return t == ggufx.TypeF16 || t == ggufx.TypeBF16 || t == ggufx.TypeF32
}

func (s *Spec) plan() []tensor {
	E, F := uint64(s.NEmbd), uint64(s.NFF)
	var ts []tensor
	add := func(name string, kind int, typ ggufx.GGMLType, dims ...uint64) *tensor {
		ts = append(ts, tensor{info: ggufx.TensorInfo{Name: name, Dims: dims, Type: typ}, kind: kind})
		return &ts[len(ts)-1]
	}
	head := kindEmbed
	if s.HeadType == s.Type && format.CodecFor(s.Type) != nil { // a ternary embedding
		head = kindTernary
	}
	add("token_embd.weight", head, s.HeadType, E, uint64(s.NVocab))
	add("output_norm.weight", kindNorm, ggufx.TypeF32, E)
	if s.Output {
		add("output.weight", head, s.HeadType, E, uint64(s.NVocab))
	}
	T := s.Type
	nproj := 0
	proj := func(l int, name string, kind int, dims ...uint64) *tensor {
		typ := T
		if len(s.Mixed) > 0 {
			typ = s.Mixed[nproj%len(s.Mixed)]
			nproj++
		}
		t := add(fmt.Sprintf("blk.%d.%s.weight", l, name), kind, typ, dims...)
		if s.ScaleTensors {
			add(fmt.Sprintf("blk.%d.%s.scale", l, name), kindScale, ggufx.TypeF32, 1)
		}
		return t
	}
	for l := 0; l < s.NLayer; l++ {
		if s.Arch == ArchLlama {
			s.planLlamaLayer(l, add, proj)
			continue
		}
		s.planAttention(l, add, proj)
		add(fmt.Sprintf("blk.%d.attn_sub_norm.weight", l), kindNorm, ggufx.TypeF32, E)
		add(fmt.Sprintf("blk.%d.ffn_norm.weight", l), kindNorm, ggufx.TypeF32, E)
		// Neuron 3 is dead in every layer: its gate and up rows are all zero.
		proj(l, "ffn_gate", kindTernary, E, F).zeroRows = []int{3}
		proj(l, "ffn_up", kindTernary, E, F).zeroRows = []int{3, 7}
		proj(l, "ffn_down", kindTernary, F, E)
		add(fmt.Sprintf("blk.%d.ffn_sub_norm.weight", l), kindNorm, ggufx.TypeF32, F)
		if s.Experts > 0 && l == 0 {
			X := uint64(s.Experts)
			add("blk.0.ffn_gate_exps.weight", kindTernary, T, E, F, X)
			add("blk.0.ffn_up_exps.weight", kindTernary, T, E, F, X)
			add("blk.0.ffn_down_exps.weight", kindTernary, T, F, E, X)
		}
	}
	if s.OddTensor {
		if T == ggufx.TypeQ2_0 {
			add("blk.0.odd_proj.weight", kindTernary, T, 192, 8)
		} else {
			add("blk.0.odd_proj.weight", kindFloatOdd, ggufx.TypeF32, 100, 8)
		}
	}
	return ts
}

// Write writes the model described by s to path (atomicfile: unnamed until
// complete).
func Write(path string, s Spec) error { return WriteProgress(path, s, nil) }

// WriteProgress is Write calling progress (if not nil) with the bytes
// written of the file's size after each tensor, and once more when the file
// is complete.
func WriteProgress(path string, s Spec, progress func(done, total int64)) error {
	return WriteTo(path, s, true, progress)
}

// WriteTo is WriteProgress that replaces a file at path only when replace
// (else a file that appears there while the model is written is kept, and
// the model not written: atomicfile.CreateNew).
func WriteTo(path string, s Spec, replace bool, progress func(done, total int64)) error {
	if err := s.check(); err != nil {
		return err
	}
	if format.CodecFor(s.Type) == nil && !isMaster(s.Type) {
		return fmt.Errorf("modelgen: %v is not a ternary or float master type", s.Type)
	}
	ts := s.plan()
	h := ggufx.Header{Version: 3, Alignment: 32, KVs: s.kvs()}
	for _, t := range ts {
		h.Tensors = append(h.Tensors, t.info)
	}
	create := atomicfile.CreateNew
	if replace {
		create = atomicfile.Create
	}
	tmp, err := create(path, 0o644)
	if err != nil {
		return err
	}
	defer tmp.Abort() // nothing after a Commit
	bw := bufio.NewWriterSize(tmp, 1<<20)
	w, err := ggufx.NewWriter(bw, h)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	report := func(done uint64) {
		if progress != nil {
			// The last tenth is the flush to disk at the commit.
			progress(int64(done), int64(w.FileSize()+w.FileSize()/10))
		}
	}
	offs := w.Tensors()
	for i, t := range ts {
		if err := s.writeTensor(w, rng, i, t); err != nil {
			return fmt.Errorf("modelgen: %s: %w", t.info.Name, err)
		}
		report(w.DataOffset() + offs[i].Offset + offs[i].Size)
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Commit(); err != nil {
		return err
	}
	report(w.FileSize() + w.FileSize()/10)
	return nil
}

func (s *Spec) writeTensor(w *ggufx.Writer, rng *rand.Rand, idx int, t tensor) error {
	n := uint64(1)
	for _, d := range t.info.Dims {
		n *= d
	}
	switch t.kind {
	case kindNorm, kindScale, kindFloatOdd, kindRouter:
		buf := make([]byte, 4*n)
		for i := uint64(0); i < n; i++ {
			v := float32(1 + 0.1*rng.NormFloat64())
			switch t.kind {
			case kindFloatOdd:
				v = float32(rng.NormFloat64())
			case kindRouter:
				v = float32(s.routerScale() * rng.NormFloat64())
			}
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		_, err := w.Write(buf)
		return err
	case kindEmbed:
		return writeEmbed(w, rng, t.info.Type, n)
	}
	k := int(t.info.Dims[0])
	rows := int(n) / k
	z := s.ZMin + (s.ZMax-s.ZMin)*rng.Float64()
	var p format.Planes
	fillPlanes(rng, &p, k, rows, z, t.zeroRows)
	if isMaster(s.Type) {
		return writeMaster(w, rng, s.Type, &p)
	}
	c := format.CodecFor(t.info.Type) // s.Type, or its type in a Mixed file
	sc := makeScales(rng, c, &p, idx)
	s.llamaGain(sc, k, z)
	buf := make([]byte, c.TensorBytes(k, rows))
	if err := c.Encode(&p, sc, buf); err != nil {
		return err
	}
	if s.NonTernary && t.info.Name == "blk.0.attn_q.weight" {
		// Element 0 of row 0 gets code 3 (+2d): the tensor is not ternary.
		switch s.Type {
		case ggufx.TypeQ2_0:
			buf[2] |= 3
		case ggufx.TypeTQ2_0:
			buf[0] |= 3
		case ggufx.TypeI2_S:
			buf[0] |= 3 << 6
		}
	}
	_, err := w.Write(buf)
	return err
}

// planAttention adds layer l's attention norm and projections, the same in
// every arch here (row 1 of attn_q is all zero).
func (s *Spec) planAttention(l int,
	add func(name string, kind int, typ ggufx.GGMLType, dims ...uint64) *tensor,
	proj func(l int, name string, kind int, dims ...uint64) *tensor) {
	E := uint64(s.NEmbd)
	Ekv := E / uint64(s.NHead) * uint64(s.NHeadKV)
	add(fmt.Sprintf("blk.%d.attn_norm.weight", l), kindNorm, ggufx.TypeF32, E)
	proj(l, "attn_q", kindTernary, E, E).zeroRows = []int{1}
	proj(l, "attn_k", kindTernary, E, Ekv)
	proj(l, "attn_v", kindTernary, E, Ekv)
	proj(l, "attn_output", kindTernary, E, E)
}

// fillPlanes draws rows x k ternary weights with zero density z and balanced
// signs; the listed rows (if they exist) are all zero.
func fillPlanes(rng *rand.Rand, p *format.Planes, k, rows int, z float64, zeroRows []int) {
	p.Reset(k, rows)
	thr := uint64(z * (1 << 16))
	for i := range p.Present {
		var pres, neg uint64
		for j := 0; j < 64; j += 4 {
			r := rng.Uint64()
			for q := 0; q < 4; q++ {
				if r&0xffff >= thr {
					pres |= 1 << (j + q)
				}
				r >>= 16
			}
		}
		neg = rng.Uint64() & pres
		p.Present[i], p.Neg[i] = pres, neg
	}
	wpr := k / 64
	for _, r := range zeroRows {
		if r < rows {
			clear(p.Present[r*wpr : (r+1)*wpr])
			clear(p.Neg[r*wpr : (r+1)*wpr])
		}
	}
}

// makeScales draws the scales for a tensor. For grouped scales about one
// block in 300 gets scale 0 and its weights are cleared (what ggml's
// quantizers produce for an all-zero block).
func makeScales(rng *rand.Rand, c format.Codec, p *format.Planes, idx int) *format.Scales {
	g := c.ScaleGroup()
	if g == 0 {
		sc := &format.Scales{F32: math.Float32bits(float32(0.5 + rng.Float64()))}
		if idx%2 == 0 {
			// BitNet's quantizer leaves the 28 bytes after the scale
			// uninitialized: real files carry arbitrary bytes there.
			sc.Tail = make([]byte, 28)
			for i := range sc.Tail {
				sc.Tail[i] = byte(rng.Uint32())
			}
		}
		return sc
	}
	per := p.K / g
	sc := &format.Scales{Group: g, F16: make([]uint16, per*p.Rows)}
	for i := range sc.F16 {
		if rng.IntN(300) == 0 {
			r, b := i/per, i%per
			for j := b * g; j < (b+1)*g; j++ {
				p.Set(r, j, 0)
			}
			continue // scale 0
		}
		sc.F16[i] = float16.Fromfloat32(float32(0.002 + 0.02*rng.Float64())).Bits()
	}
	return sc
}

// writeMaster writes p as float weights whose absmean ternarization gives p
// back: w = v*s + noise, |noise| well inside the rounding margin.
func writeMaster(w *ggufx.Writer, rng *rand.Rand, t ggufx.GGMLType, p *format.Planes) error {
	size := 2
	if t == ggufx.TypeF32 {
		size = 4
	}
	s := 0.01 + 0.02*rng.Float64()
	row := make([]byte, size*p.K)
	for r := 0; r < p.Rows; r++ {
		for j := 0; j < p.K; j++ {
			v := float64(p.Value(r, j))
			x := float32(v*s + 0.15*s*(2*rng.Float64()-1))
			switch t {
			case ggufx.TypeF32:
				binary.LittleEndian.PutUint32(row[4*j:], math.Float32bits(x))
			case ggufx.TypeF16:
				binary.LittleEndian.PutUint16(row[2*j:], float16.Fromfloat32(x).Bits())
			case ggufx.TypeBF16:
				binary.LittleEndian.PutUint16(row[2*j:], uint16(math.Float32bits(x)>>16))
			}
		}
		if _, err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

// writeEmbed writes n random float values of type t in 1 MiB chunks, with a
// fast generator: a 2B-shaped head is 328M values.
func writeEmbed(w *ggufx.Writer, rng *rand.Rand, t ggufx.GGMLType, n uint64) error {
	size := uint64(2)
	if t == ggufx.TypeF32 {
		size = 4
	}
	buf := make([]byte, 1<<20)
	left := n * size
	for left > 0 {
		chunk := buf
		if uint64(len(chunk)) > left {
			chunk = chunk[:left]
		}
		for i := 0; i+8 <= len(chunk); i += 8 {
			r := rng.Uint64()
			var v uint64
			switch t {
			case ggufx.TypeF32:
				// two f32 with exponent 2^-4..: sign, low exponent bits, mantissa
				v = r&0x807FFFFF807FFFFF | 0x3D0000003D000000
			default:
				// four halves (F16: exponent 11 -> ~1/16; BF16 alike)
				if t == ggufx.TypeBF16 {
					v = r&0x807F807F807F807F | 0x3D003D003D003D00
				} else {
					v = r&0x83FF83FF83FF83FF | 0x2C002C002C002C00
				}
			}
			binary.LittleEndian.PutUint64(chunk[i:], v)
		}
		for i := len(chunk) &^ 7; i < len(chunk); i++ {
			chunk[i] = 0
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		left -= uint64(len(chunk))
	}
	return nil
}
