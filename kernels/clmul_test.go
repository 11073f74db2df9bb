package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// clmulPermRef is the activation copy bitcos_avx2_clmul.c reads, written
// from its definition (c/bitcos_avx2_clmul.c): per 256-block, output byte
// 128G + 32s + 16h + 4k + r is element 32c + 4(2k + r/2) + s of chunk
// c = 2(G + 2h) + r%2; then 8 little-endian int32, lane m the sum of the
// elements e with e%32 in [4m, 4m+4) plus bsums[2m] + bsums[2m+1]; after
// the last block, every block's D as a little-endian float32.
func clmulPermRef(y []BlockQ8K) []byte {
	out := make([]byte, 0, len(y)*(ckern.ClmulQPBlock+4))
	for _, b := range y {
		for G := range 2 {
			for s := range 4 {
				for h := range 2 {
					for k := range 4 {
						for r := range 4 {
							c := 2*(G+2*h) + r%2
							out = append(out, byte(b.Qs[32*c+4*(2*k+r/2)+s]))
						}
					}
				}
			}
		}
		for m := range 8 {
			corr := int32(b.Bsums[2*m]) + int32(b.Bsums[2*m+1])
			for e := range QK_K {
				if (e%32)/4 == m {
					corr += int32(b.Qs[e])
				}
			}
			out = binary.LittleEndian.AppendUint32(out, uint32(corr))
		}
	}
	for _, b := range y {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(b.D))
	}
	return out
}

// TestClmulPermutation: every build of the clmul kernel's column copy
// (bitcos_q8_K_perm_clmul) equals the definition byte for byte, on quantized
// and raw (full int8 range, inconsistent bsums) activations. The kernel's own
// results are checked bit for bit in TestTQ2OrderMatchesReference.
func TestClmulPermutation(t *testing.T) {
	needCgo(t)
	rng := rand.New(rand.NewPCG(91, 92))
	builds := []struct {
		name  string
		build ckern.ClmulBuild
	}{{"avx2_clmul", ckern.ClmulYMM}, {"avx2_clmul_xmm", ckern.ClmulXMM}, {"clmul_generic", ckern.ClmulGeneric}}
	notRun(t, clmulVariants())
	usable := map[string]bool{}
	for _, v := range clmulVariants() {
		usable[v.name] = v.why == ""
	}
	for _, k := range []int{256, 512, 2560, 8192} {
		for _, raw := range []bool{false, true} {
			y := randomActivations(rng, k, raw)
			if raw {
				for i := range y {
					for j := range y[i].Bsums {
						y[i].Bsums[j] = int16(rng.IntN(65536) - 32768)
					}
				}
			}
			want := clmulPermRef(y)
			for _, b := range builds {
				if !usable[b.name] {
					continue
				}
				got := ckern.ClmulPerm(b.build, k, yPtr(y))
				if !bytes.Equal(got, want) {
					i := 0
					for got[i] == want[i] {
						i++
					}
					t.Fatalf("%s k=%d raw=%v: byte %d (block %d, offset %d) is %d, want %d",
						b.name, k, raw, i, i/ckern.ClmulQPBlock, i%ckern.ClmulQPBlock, got[i], want[i])
				}
			}
		}
	}
}
