package format

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// TestCountRowNonZeros: every registered codec that declares a code span is
// counted exactly as its Decode counts; the others get ErrNoCounter.
func TestCountRowNonZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	counted := 0
	for _, c := range StockCodecs() {
		cc, ok := c.(codeCounter)
		if !ok {
			if _, err := CountRowNonZeros(c, make([]byte, c.TensorBytes(256, 1)), 256, 1, nil); err != ErrNoCounter {
				t.Fatalf("%s: %v, want ErrNoCounter", c.Name(), err)
			}
			continue
		}
		counted++
		for _, shape := range [][2]int{{256, 1}, {512, 3}, {2560, 5}} {
			k, rows := shape[0], shape[1]
			p := randomPlanes(rng, k, rows, 0.3+0.2*rng.Float64(), rows-1)
			s := &Scales{Group: c.ScaleGroup(), F32: 0x3f800000}
			if s.Group > 0 {
				s.F16 = make([]uint16, rows*k/s.Group)
				for i := range s.F16 {
					s.F16[i] = uint16(rng.Uint32()) & 0x7bff // finite, random bits
				}
			}
			buf := make([]byte, c.TensorBytes(k, rows))
			if err := c.Encode(p, s, buf); err != nil {
				t.Fatal(err)
			}
			got, err := CountRowNonZeros(c, buf, k, rows, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.Name(), err)
			}
			want := RowNonZeros(p, nil)
			for r := range want {
				if got[r] != want[r] {
					t.Fatalf("%s %dx%d row %d: counted %d non-zeros, want %d", c.Name(), rows, k, r, got[r], want[r])
				}
			}
			// A code 3 must be reported as Decode reports it.
			buf[cc.codeSpan().off] |= 3 // the first code of the tensor
			if _, err := CountRowNonZeros(c, buf, k, rows, nil); !errors.Is(err, ErrNotTernary) {
				t.Fatalf("%s: code 3 not reported: %v", c.Name(), err)
			}
		}
	}
	if counted == 0 {
		t.Fatal("no codec declares a code span")
	}
	if _, err := CountRowNonZeros(TQ1_0, make([]byte, 54), 256, 1, nil); err != ErrNoCounter {
		t.Fatalf("TQ1_0: %v", err)
	}
	if _, err := CountRowNonZeros(TQ2_0, make([]byte, 65), 256, 1, nil); err == nil {
		t.Fatal("short input accepted")
	}
}

func BenchmarkCountRowNonZeros(b *testing.B) {
	rng := rand.New(rand.NewPCG(23, 24))
	p := randomPlanes(rng, 2560, 512, 0.42)
	s := &Scales{Group: 256, F16: make([]uint16, 512*10)}
	buf := make([]byte, TQ2_0.TensorBytes(2560, 512))
	TQ2_0.Encode(p, s, buf)
	var nnz []int
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		nnz, _ = CountRowNonZeros(TQ2_0, buf, 2560, 512, nnz)
	}
}
