package kernels

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern512"
	"github.com/klauspost/cpuid/v2"
)

// Benchmarks of the C kernels on one activation column at z = 0.42, K = 2560:
//
//	L1:   one row dotted again and again (everything stays in L1)
//	DRAM: 24 copies of a 6912 x 2560 matrix (BITCOS ~88 MB, TQ2_0 ~110 MB,
//	      more than this machine's last-level cache), every row once
//
// next to the TQ2_0 kernels on the same values. Metrics: ns per 32 weights
// and GB/s of weight bytes (BITCOS: bitmap + signs + row index + scales;
// TQ2_0: 66 bytes per 256). kernels/c/bench has the same in C, with cycles.
//
//	go test ./kernels -run '^$' -bench . -benchtime 20x
//
// The rows are encoded by format.EncodeBitcos and format.TQ2_0.Encode.

const (
	benchK      = 2560
	benchRows   = 6912
	benchLayers = 24
	benchZ      = 0.42
)

type benchSet struct {
	rows    int
	bitmap  []byte
	signs   []byte
	off     []uint32
	d16     []uint16
	tq2     []byte
	y       []BlockQ8K
	bcBytes float64 // BITCOS bytes of the set (row index included)
	tqBytes float64
}

var (
	benchOnce   sync.Once
	benchL1     *benchSet
	benchDRAM   *benchSet
	benchDRAMmu sync.Mutex
)

func makeBenchSet(b *testing.B, rows, copies int) *benchSet {
	rng := rand.New(rand.NewPCG(42, 42))
	p := randomPlanes(rng, benchK, rows, []float64{benchZ})
	bitmap, signs, off := encodeRows(b, p)
	d16 := randomScales(rng, rows*benchK/QK_K)
	for i := range d16 {
		d16[i] = 0x2000 + uint16(i%512) // small normal scales
	}
	tq := make([]byte, format.TQ2_0.TensorBytes(benchK, rows))
	if err := format.TQ2_0.Encode(p, &format.Scales{Group: QK_K, F16: d16}, tq); err != nil {
		b.Fatal(err)
	}
	s := &benchSet{rows: rows * copies, y: randomActivations(rng, benchK, false)}
	nsig := int(off[rows])
	for c := range copies {
		s.bitmap = append(s.bitmap, bitmap...)
		s.signs = append(s.signs, signs[:nsig]...)
		s.d16 = append(s.d16, d16...)
		s.tq2 = append(s.tq2, tq...)
		for r := range rows {
			s.off = append(s.off, uint32(c*nsig)+off[r])
		}
	}
	s.off = append(s.off, uint32(copies*nsig))
	s.signs = append(s.signs, make([]byte, format.SignTailBytes)...)
	s.bcBytes = float64(len(s.bitmap) + len(s.signs) + 4*len(s.off) + 2*len(s.d16))
	s.tqBytes = float64(len(s.tq2))
	return s
}

func BenchmarkKernels(b *testing.B) {
	if !ckern.Available {
		b.Skip("built without cgo")
	}
	benchOnce.Do(func() { benchL1 = makeBenchSet(b, 1, 1) })
	type kern struct {
		name string
		run  func(s *benchSet, rows int, repeat bool, out []float32)
		tq2  bool
		ok   bool
	}
	avx2 := cpuid.CPU.Supports(cpuid.AVX2, cpuid.BMI2, cpuid.F16C, cpuid.POPCNT)
	bc := func(v ckern.Variant) func(s *benchSet, rows int, repeat bool, out []float32) {
		return func(s *benchSet, rows int, repeat bool, out []float32) {
			ckern.GEMV(v, benchK, rows, repeat, s.bitmap, s.signs, s.off, s.d16, 0, yPtr(s.y), out)
		}
	}
	tq := func(v ckern.Variant) func(s *benchSet, rows int, repeat bool, out []float32) {
		return func(s *benchSet, rows int, repeat bool, out []float32) {
			ckern.TQ2GEMV(v, benchK, rows, repeat, s.tq2, yPtr(s.y), out)
		}
	}
	kerns := []kern{
		{"bitcos_generic", bc(ckern.Generic), false, true},
		// the TQ2_0-order kernels (the defaults in llama.cpp)
		{"bitcos_avx2_tq2", bc(ckern.AVX2TQ2), true, avx2 && cpuid.CPU.Supports(cpuid.FMA3) && ckern.Compiled(ckern.AVX2TQ2)},
		{"bitcos_avx2_nopdep_tq2", bc(ckern.AVX2NoPdepTQ2), true, avx2 && cpuid.CPU.Supports(cpuid.FMA3) && ckern.Compiled(ckern.AVX2NoPdepTQ2)},
		{"bitcos_avx2_clmul", func(s *benchSet, rows int, repeat bool, out []float32) {
			ckern.ClmulGEMV(ckern.ClmulYMM, benchK, rows, repeat, s.bitmap, s.signs, s.off, s.d16, 0, yPtr(s.y), out)
		}, true, avx2 && cpuid.CPU.Supports(cpuid.FMA3, cpuid.CLMUL, cpuid.VPCLMULQDQ) && ckern.ClmulCompiled(ckern.ClmulYMM)},
		{"bitcos_avx512_tq2", func(s *benchSet, rows int, repeat bool, out []float32) {
			ckern512.GEMVTQ2(benchK, rows, repeat, s.bitmap, s.signs, s.off, s.d16, 0, yPtr(s.y), out)
		}, true, ckern512.UsableTQ2()},
		{"tq2_0_avx2", tq(ckern.TQ2AVX2), true, avx2 && ckern.TQ2CompiledAVX2()},
		{"tq2_0_avx2_exact", tq(ckern.TQ2AVX2Exact), true, avx2 && ckern.TQ2CompiledAVX2()},
	}
	for _, where := range []string{"L1", "DRAM"} {
		for _, k := range kerns {
			b.Run(where+"/"+k.name, func(b *testing.B) {
				if !k.ok {
					b.Skip("not runnable on this CPU/build")
				}
				s, rows, repeat := benchL1, 1000, true
				if where == "DRAM" {
					if k.name == "bitcos_generic" {
						b.Skip("scalar reference: L1 only")
					}
					if testing.Short() {
						b.Skip("-short")
					}
					benchDRAMmu.Lock()
					if benchDRAM == nil {
						benchDRAM = makeBenchSet(b, benchRows, benchLayers)
					}
					benchDRAMmu.Unlock()
					s, rows, repeat = benchDRAM, benchDRAM.rows, false
				}
				out := make([]float32, rows)
				b.ResetTimer()
				for range b.N {
					k.run(s, rows, repeat, out)
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				w32 := float64(rows) * benchK / 32
				bytes := s.bcBytes
				if k.tq2 {
					bytes = s.tqBytes
				}
				bytes *= float64(rows) / float64(s.rows)
				b.ReportMetric(ns/w32, "ns/32w")
				b.ReportMetric(bytes/ns, "GB/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
