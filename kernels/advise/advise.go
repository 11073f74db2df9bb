package advise

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
	"github.com/klauspost/cpuid/v2"
)

// ErrNeedsCgo: the C kernels are compiled through cgo, and this binary was
// built without it.
var ErrNeedsCgo = errors.New("advise runs the C kernels of kernels/c through cgo, and this binary was built without cgo (CGO_ENABLED=0): rebuild it with cgo and a C compiler (gcc)")

// Defaults.
const (
	DefaultZ      = 0.42 // BitNet b1.58 2B4T's measured zero density (DESIGN.md §1)
	DefaultBudget = 4 * time.Second
	minBufferSize = 256 << 20
)

// DefaultShapes is BitNet b1.58 2B's FFN: up/gate (2560 -> 6912) and down
// (6912 -> 2560), its largest ternary matrices.
var DefaultShapes = []Shape{{K: 2560, Rows: 6912}, {K: 6912, Rows: 2560}}

// Options of Run. The zero value runs the defaults.
type Options struct {
	Threads []int         // thread counts; nil: DefaultThreads()
	Budget  time.Duration // for all timings (data generation not counted); 0: DefaultBudget
	Z       float64       // zero density of the generated weights; 0: ZSource "default", DefaultZ
	ZSource string        // what Z is ("flag", "model"); "" with Z = 0
	Shapes  []Shape       // nil: DefaultShapes
	F32     bool          // a per-tensor f32 scale (an I2_S source) instead of fp16 per 256
	Model   string        // named in the result when the shapes and z came from a model
	Kernel  string        // force a kernel, as GGML_BITCOS_KERNEL does ("" = the default)
	Build   string        // BuildNative (""), BuildAVX2, BuildBaseline
	// ReadBytes and StackBytes pin the sizes of the read buffer and of the
	// GEMV stack (its TQ2_0 bytes); 0: max(256 MiB, 8 x L3). Tests make
	// them small.
	ReadBytes, StackBytes int64
	Seed                  uint64
	// Notes are carried into the result (FromModel's remarks).
	Notes []string
	// Progress, when set, gets one line per phase.
	Progress io.Writer
}

// DefaultThreads is 1..NumCPU up to 8 threads, beyond that the powers of two
// and NumCPU.
func DefaultThreads() []int {
	n := runtime.NumCPU()
	var ts []int
	for t := 1; t <= n; t++ {
		if n <= 8 || t&(t-1) == 0 || t == n {
			ts = append(ts, t)
		}
	}
	return ts
}

// bufferBytes is the default size of the read buffer and the stack.
func bufferBytes() int64 {
	return max(int64(minBufferSize), 8*int64(cpuid.CPU.Cache.L3))
}

// RuleFor is the loader's choice for features f: bitcos_select(f, kernel)
// (kernel "" passes NULL), then bitcos_select_layout with no
// GGML_BITCOS_LAYOUT (fp16 and f32 scales take the same layout). It panics
// without cgo.
func RuleFor(f ckern.Features, kernel string) Rule {
	var forced *string
	if kernel != "" {
		forced = &kernel
	}
	c := ckern.Select(f, forced)
	l := ckern.SelectLayout(c, nil)
	return Rule{Kernel: c.Name, KernelWhy: c.Why, KernelForced: c.Forced, Order: c.Order, Layout: l.Name, LayoutWhy: l.Why, TQ2_0VNNI: c.TQ2_0VNNI}
}

// Run measures and decides (see the package comment).
func Run(o Options) (*Result, error) {
	if !ckern.Available {
		return nil, ErrNeedsCgo
	}
	start := time.Now()
	if err := o.defaults(); err != nil {
		return nil, err
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "advise: "+format+"\n", args...)
		}
	}

	f, err := Features(o.Build)
	if err != nil {
		return nil, err
	}
	if o.Kernel != "" && !slices.Contains(kernelNames(), o.Kernel) {
		return nil, fmt.Errorf("unknown kernel %q (one of %s)", o.Kernel, strings.Join(kernelNames(), ", "))
	}
	res := &Result{
		CPU: cpuInfo(), Build: o.Build, BuiltKernels: BuiltNames(f),
		Rule:  RuleFor(f, o.Kernel),
		Model: o.Model, Z: o.Z, ZSource: o.ZSource, FP16Scales: !o.F32,
		Roofline:        "T = max(B / beta, gamma) per 32 weights (DESIGN.md §1): B bytes read, beta one thread's share of the streaming-read bandwidth, gamma the kernel's time per thread with its data in cache, as many threads running",
		ReadBufferBytes: o.ReadBytes,
		BudgetSeconds:   o.Budget.Seconds(),
		Notes:           slices.Clone(o.Notes),
	}
	native, err := bitcosKernel(res.Rule.Kernel, o.Build)
	if err != nil {
		return nil, fmt.Errorf("the rule picks %s: %w", res.Rule.Kernel, err)
	}
	file := tq2Kernel(hasAVX2(f))
	layout, err := tq2LayoutKernel(res.Rule, file, o.F32, hasAVX2(f))
	if err != nil {
		return nil, err
	}
	// ks: the native layout's kernel, the tq2_0 layout's, then the TQ2_0
	// file's unless the tq2_0 layout runs it (measureGEMV's convention)
	ks := []kernel{native, layout}
	roles := [][]string{{RoleNative}, {RoleTQ2Layout, RoleFile}}
	if layout.Name != file.Name {
		ks, roles = append(ks, file), [][]string{{RoleNative}, {RoleTQ2Layout}, {RoleFile}}
		if layout.F32 {
			res.Notes = append(res.Notes, "the tq2_0 layout runs "+layout.Name+" ("+layout.Build+") on f32 blocks, the kernel patch 0013 runs for one column of converted weights with a per-tensor f32 scale; it is checked bit for bit against the native layout's kernel on the generated rows; the TQ2_0 file runs ggml's kernel on TQ2_0 blocks of the same values with fp16 scales")
		} else {
			res.Notes = append(res.Notes, "the tq2_0 layout runs "+layout.Name+" ("+layout.Build+"), the kernel patches 0011-0013 run for one column of converted weights where the build has tq2_0_vnni; the TQ2_0 file runs ggml's kernel; both are checked bit for bit against each other on the generated rows")
		}
	} else {
		res.Notes = append(res.Notes, "the tq2_0 layout runs ggml's TQ2_0 kernel here (no tq2_0_vnni in this build), as the TQ2_0 file does: one pass serves both, and the tq2_0 layout's ratio to the file is 1 by construction")
	}
	res.Notes = append(res.Notes, "the TQ2_0 file's kernel here is gguf-bitcos' yardstick ("+file.Build+"), with ggml's lanes, reduction and float order, not ggml's own code: where TQ2_0 is compute-bound, ggml's build of its kernel may differ in speed (docs/BENCHMARKS.md)")
	if l3 := int64(cpuid.CPU.Cache.L3); l3 > 0 && min(o.ReadBytes, o.StackBytes) < 4*l3 {
		res.Notes = append(res.Notes, fmt.Sprintf("the read buffer (%d MiB) or the GEMV stack (%d MiB of TQ2_0) is under 4x the L3 (%d MiB): part of it may come from cache", o.ReadBytes>>20, o.StackBytes>>20, l3>>20))
	}
	for _, env := range []string{"GGML_BITCOS_KERNEL", "GGML_BITCOS_LAYOUT"} {
		if v, ok := os.LookupEnv(env); ok {
			res.Notes = append(res.Notes, fmt.Sprintf("%s=%s is set: llama.cpp would follow it; advise shows the rule without it (--kernel forces a kernel here)", env, v))
		}
	}
	if runtime.NumCPU() < slices.Max(o.Threads) {
		res.Notes = append(res.Notes, fmt.Sprintf("%d threads on %d logical CPUs: threads share cores", slices.Max(o.Threads), runtime.NumCPU()))
	}
	if procs := runtime.GOMAXPROCS(0); procs < slices.Max(o.Threads) {
		runtime.GOMAXPROCS(slices.Max(o.Threads))
		defer runtime.GOMAXPROCS(procs)
	}

	// Data: one matrix per shape, checked, then copied into a stack of layers.
	progress("generating %v at z = %.3f", o.Shapes, o.Z)
	rng := rand.New(rand.NewPCG(o.Seed, 0xad1e))
	base := make([]*matrix, len(o.Shapes))
	acts := map[int]act{}
	var layerTQ2 int64
	for i, s := range o.Shapes {
		if base[i], err = genMatrix(rng, s, o.Z, !o.F32); err != nil {
			return nil, err
		}
		if _, ok := acts[s.K]; !ok {
			acts[s.K] = newAct(rng, s.K)
		}
		for _, k := range ks {
			if err := check(k, base[i], acts[s.K]); err != nil {
				return nil, fmt.Errorf("results wrong before timing (a bug): %w", err)
			}
		}
		if layout.F32 && layout.order == native.order {
			if err := sameBits(layout, native, base[i], acts[s.K]); err != nil {
				return nil, fmt.Errorf("the tq2_0 layout's kernel and the native layout's disagree (a bug): %w", err)
			}
		} else if len(ks) == 3 && layout.order == file.order {
			if err := sameBits(layout, file, base[i], acts[s.K]); err != nil {
				return nil, fmt.Errorf("the tq2_0 layout's kernel and the TQ2_0 file's disagree (a bug): %w", err)
			}
		}
		w32 := float64(s.K*s.Rows) / 32
		res.Shapes = append(res.Shapes, ShapeInfo{Shape: s,
			BitcosBytes32: float64(base[i].bitcosBytes()) / w32, TQ2Bytes32: float64(len(base[i].tq2)) / w32})
		layerTQ2 += int64(len(base[i].tq2))
	}

	// The budget: a fifth for the read bandwidth, a sixth for the compute
	// terms, the rest for the GEMVs; each split evenly.
	readSlice := o.Budget / 5 / time.Duration(len(o.Threads))
	computeSlice := o.Budget / 6 / time.Duration(len(ks)*len(acts)*len(o.Threads))
	gemvSlice := (o.Budget - o.Budget/5 - o.Budget/6) / time.Duration(len(o.Threads))

	progress("read bandwidth (%d MiB buffer)", o.ReadBytes>>20)
	buf := readBuffer(o.ReadBytes)
	runtime.GC()
	reads := make([]Summary, len(o.Threads))
	for i, t := range o.Threads {
		reads[i] = measureRead(buf, t, readSlice)
	}
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()

	progress("compute terms, data in cache")
	// per distinct K, a matrix of cacheRows rows that stays in cache
	cached := map[int]*matrix{}
	for _, m := range base {
		if cached[m.K] != nil {
			continue
		}
		if cached[m.K], err = genMatrix(rng, Shape{K: m.K, Rows: cacheRows(m.K)}, o.Z, !o.F32); err != nil {
			return nil, err
		}
	}
	// gamma[kernel][threads][K]: median ns per 32 weights per thread, the
	// kernel indexed as in ks
	gamma := make([]map[int]map[int]float64, len(ks))
	for i, k := range ks {
		gamma[i] = map[int]map[int]float64{}
		kr := KernelResult{Name: k.Name, Build: k.Build, Layout: LayoutNative, Roles: roles[i]}
		if k.TQ2 {
			kr.Layout = LayoutTQ2
		}
		for _, t := range o.Threads {
			gamma[i][t] = map[int]float64{}
			for _, m := range base {
				if _, done := gamma[i][t][m.K]; done {
					continue
				}
				c := cached[m.K]
				s := measureCompute(k, c, acts[m.K], t, computeSlice)
				gamma[i][t][m.K] = s.Median
				kr.Compute = append(kr.Compute, ComputeResult{Threads: t, K: m.K, Rows: c.Rows, Ns32: s})
			}
		}
		res.Kernels = append(res.Kernels, kr)
	}
	cached = nil

	layers := int(max(1, (o.StackBytes+layerTQ2-1)/layerTQ2))
	progress("stack of %d layers", layers)
	var stack []*matrix
	maxRows := 0
	for l := range layers {
		for _, m := range base {
			if l > 0 {
				m = m.clone()
			}
			stack = append(stack, m)
			maxRows = max(maxRows, m.Rows)
			res.Stack.Weights += int64(m.K * m.Rows)
			res.Stack.BitcosBytes += int64(m.bitcosBytes())
			res.Stack.TQ2Bytes += int64(len(m.tq2))
		}
	}
	res.Stack.Layers = layers
	runtime.GC() // now, not concurrently with the timed passes

	shapeCosts := func(t int) []ShapeCost {
		sc := make([]ShapeCost, len(base))
		for i, m := range base {
			sc[i] = ShapeCost{Weights: float64(m.K * m.Rows),
				Bitcos: Cost{Bytes32: res.Shapes[i].BitcosBytes32, Compute32: gamma[0][t][m.K]},
				TQ2:    Cost{Bytes32: res.Shapes[i].TQ2Bytes32, Compute32: gamma[1][t][m.K]},
				File:   Cost{Bytes32: res.Shapes[i].TQ2Bytes32, Compute32: gamma[len(ks)-1][t][m.K]}}
		}
		return sc
	}
	out := make([]float32, maxRows)
	counters := make([]atomic.Int64, len(stack))
	w32 := float64(res.Stack.Weights) / 32
	for i, t := range o.Threads {
		progress("GEMV at %d thread(s)", t)
		tr := ThreadResult{Threads: t, ReadGBs: reads[i], Beta: reads[i].Median / float64(t), RuleLayout: res.Rule.Layout}
		tr.Predicted = Predict(shapeCosts(t), tr.Beta)
		tr.PredictedWinner = Winner(tr.Predicted.Ratio)
		tr.Measured = measureGEMV(ks, stack, acts, out, t, counters, gemvSlice)
		tr.Measured.BitcosNs32 = tr.Measured.BitcosMs.Median * 1e6 * float64(t) / w32
		tr.Measured.TQ2Ns32 = tr.Measured.TQ2Ms.Median * 1e6 * float64(t) / w32
		tr.Measured.FileNs32 = tr.Measured.FileMs.Median * 1e6 * float64(t) / w32
		tr.Agrees = tr.Measured.Verdict.Winner == res.Rule.Layout
		res.Threads = append(res.Threads, tr)
	}
	res.ElapsedSeconds = time.Since(start).Seconds()
	return res, nil
}

// defaults fills the zero fields of o and checks the others.
func (o *Options) defaults() error {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	if o.Threads == nil {
		o.Threads = DefaultThreads()
	}
	if len(o.Threads) == 0 {
		return errors.New("no thread count")
	}
	for _, t := range o.Threads {
		if t < 1 || t > 1024 {
			return fmt.Errorf("thread count %d out of range", t)
		}
	}
	if o.Z == 0 && o.ZSource == "" {
		o.Z, o.ZSource = DefaultZ, "default"
	}
	if o.Z < 0 || o.Z > 1 {
		return fmt.Errorf("zero density %g out of [0, 1]", o.Z)
	}
	if o.Shapes == nil {
		o.Shapes = DefaultShapes
	}
	if o.Build == "" {
		o.Build = BuildNative
	}
	if o.ReadBytes <= 0 {
		o.ReadBytes = bufferBytes()
	}
	if o.StackBytes <= 0 {
		o.StackBytes = bufferBytes()
	}
	return nil
}

// KernelNames lists the kernels --kernel accepts (empty without cgo).
func KernelNames() []string {
	if !ckern.Available {
		return nil
	}
	return kernelNames()
}

// Available reports whether this binary has the C kernels (a cgo build).
func Available() bool { return ckern.Available }
