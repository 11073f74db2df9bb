package advise

// The roofline of DESIGN.md §1, per 32 weights: T = max(B/β, γ), with B the
// bytes read, β one thread's share of the read bandwidth and γ the time of
// the kernel with its data in cache (DESIGN says L1; here L2, see
// cacheRows). Here β is in bytes per ns (GB/s) and γ in ns, so T is in ns;
// the paper's cycles and bytes per cycle give the same ratios.

// Cost is what the roofline needs of one kernel on one matrix shape.
type Cost struct {
	Bytes32   float64 // bytes read per 32 weights (B)
	Compute32 float64 // ns per 32 weights with the data in cache (γ)
}

// Time32 is the roofline time per 32 weights at β bytes per ns, and whether
// the memory term is the larger (a tie counts as memory-bound).
func (c Cost) Time32(beta float64) (ns float64, memoryBound bool) {
	mem := c.Bytes32 / beta
	if mem >= c.Compute32 {
		return mem, true
	}
	return c.Compute32, false
}

// ShapeCost is one matrix shape of the model: its share of the weights and
// the costs of the three ways of running it: the native layout (BITCOS's
// kernel), the tq2_0 layout (TQ2_0 blocks made at load, with the kernel the
// loader runs for them) and the TQ2_0 file (ggml's kernel: the yardstick).
// File is TQ2 where the tq2_0 layout runs ggml's kernel.
type ShapeCost struct {
	Weights           float64
	Bitcos, TQ2, File Cost
}

// Prediction is the roofline's answer at one thread count. "tq2_0" is the
// tq2_0 layout, "tq2_0_file" the TQ2_0 file in stock llama.cpp.
type Prediction struct {
	BitcosNs32 float64 `json:"bitcos_ns_per_32"` // weighted over the shapes
	TQ2Ns32    float64 `json:"tq2_0_ns_per_32"`
	FileNs32   float64 `json:"tq2_0_file_ns_per_32"`
	BitcosBy   string  `json:"bitcos_bound"` // "memory", "compute" or "mixed" (shapes differ)
	TQ2By      string  `json:"tq2_0_bound"`
	FileBy     string  `json:"tq2_0_file_bound"`
	// Ratio is the tq2_0 layout's time over the native layout's: above 1
	// the native layout wins.
	Ratio float64 `json:"ratio"`
	// NativeVsFile and TQ2VsFile are the TQ2_0 file's time over each
	// layout's: each layout's speed relative to the TQ2_0 file (above 1:
	// faster than the file).
	NativeVsFile float64 `json:"native_vs_file"`
	TQ2VsFile    float64 `json:"tq2_0_vs_file"`
}

// Predict applies the roofline to every shape at β bytes per ns per thread
// and adds the times weighted by each shape's weights (a model reads every
// matrix once per token, so its time per weight is that weighted mean).
func Predict(shapes []ShapeCost, beta float64) Prediction {
	var p Prediction
	var total float64
	var bcMem, tqMem, fMem int
	for _, s := range shapes {
		tb, mb := s.Bitcos.Time32(beta)
		tt, mt := s.TQ2.Time32(beta)
		tf, mf := s.File.Time32(beta)
		p.BitcosNs32 += s.Weights * tb
		p.TQ2Ns32 += s.Weights * tt
		p.FileNs32 += s.Weights * tf
		total += s.Weights
		bcMem += b2i(mb)
		tqMem += b2i(mt)
		fMem += b2i(mf)
	}
	if total > 0 {
		p.BitcosNs32 /= total
		p.TQ2Ns32 /= total
		p.FileNs32 /= total
	}
	if p.BitcosNs32 > 0 {
		p.Ratio = p.TQ2Ns32 / p.BitcosNs32
		p.NativeVsFile = p.FileNs32 / p.BitcosNs32
	}
	if p.TQ2Ns32 > 0 {
		p.TQ2VsFile = p.FileNs32 / p.TQ2Ns32
	}
	p.BitcosBy, p.TQ2By, p.FileBy = bound(bcMem, len(shapes)), bound(tqMem, len(shapes)), bound(fMem, len(shapes))
	return p
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func bound(memory, shapes int) string {
	switch memory {
	case shapes:
		return "memory"
	case 0:
		return "compute"
	}
	return "mixed"
}

// BitcosBytes32 is the BITCOS bytes per 32 weights at zero density z as
// DESIGN.md §1 counts them: 4 (bitmap) + 4(1-z) (signs) + scale bytes
// (0.25 for one fp16 per 256 weights, 0 for a per-tensor f32). The
// measurement counts the bytes of its generated rows instead (row index,
// byte-aligned rows and the 8-byte tail included); this is the check.
func BitcosBytes32(z float64, fp16Scales bool) float64 {
	b := 4 + 4*(1-z)
	if fp16Scales {
		b += 0.25
	}
	return b
}

// TQ2Bytes32 is TQ2_0's bytes per 32 weights: 66 per 256 (the tq2_0
// layout's and the TQ2_0 file's).
const TQ2Bytes32 = 66.0 / 8

// Layouts, as bitcos_layout_name spells them.
const (
	LayoutNative = "native"
	LayoutTQ2    = "tq2_0"
)

// Verdict is what the measured rounds say about the two layouts (the
// TQ2_0 file is not a layout the loader can pick: it is the yardstick).
type Verdict struct {
	Winner string  `json:"winner"` // LayoutNative or LayoutTQ2
	Ratio  float64 `json:"ratio"`  // median over rounds of the tq2_0 layout's time over the native layout's
	// Margin is how much faster the winner is: 0.10 means 1.10x.
	Margin float64 `json:"margin"`
	// Clear: every round's ratio is on the winner's side of 1 (the noise
	// of the rounds does not reach the other layout).
	Clear bool `json:"clear"`
}

// Decide takes the per-round ratios (the tq2_0 layout's time over the
// native layout's, measured in the same round) and names the faster layout by their median; at
// exactly 1 the native layout wins (same speed, less memory).
func Decide(ratios []float64) Verdict {
	if len(ratios) == 0 {
		return Verdict{}
	}
	r := median(ratios)
	v := Verdict{Winner: LayoutNative, Ratio: r, Margin: r - 1, Clear: true}
	if r < 1 {
		v.Winner, v.Margin = LayoutTQ2, 1/r-1
	}
	for _, x := range ratios {
		if (x >= 1) != (r >= 1) {
			v.Clear = false
		}
	}
	return v
}

// Winner names the faster layout for a predicted ratio (as Decide does).
func Winner(ratio float64) string {
	if ratio >= 1 {
		return LayoutNative
	}
	return LayoutTQ2
}
