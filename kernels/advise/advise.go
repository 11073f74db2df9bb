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
	Kernel  string        // force a kernel ("" = the rule's); llama.cpp runs its build's
	Build   string        // BuildNative (""), BuildAVX2, BuildBaseline
	// Q2_0: the model's weights have fp16 scales per 64 (a Q2_0 source):
	// measure their two CPU layouts too (Result.Q2_0), a quarter more time
	Q2_0 bool
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
	f, err := Features(o.Build)
	if err != nil {
		return nil, err
	}
	if o.Kernel != "" && !slices.Contains(kernelNames(), o.Kernel) {
		return nil, fmt.Errorf("unknown kernel %q (one of %s)", o.Kernel, strings.Join(kernelNames(), ", "))
	}
	s := &session{o: o, res: newResult(o, f)}
	if err := s.pickKernels(f); err != nil {
		return nil, err
	}
	s.noteSetting()
	if procs := runtime.GOMAXPROCS(0); procs < slices.Max(o.Threads) {
		runtime.GOMAXPROCS(slices.Max(o.Threads))
		defer runtime.GOMAXPROCS(procs)
	}
	if err := s.generate(); err != nil {
		return nil, err
	}

	// The budget: a fifth for the read bandwidth, a sixth for the compute
	// terms, an eighth for the batches, the rest for the GEMVs; each split
	// evenly.
	readSlice := o.Budget / 5 / time.Duration(len(o.Threads))
	computeSlice := o.Budget / 6 / time.Duration(len(s.ks)*len(s.acts)*len(o.Threads))
	batchSlice := o.Budget / 8 / time.Duration(len(o.Threads))
	gemvSlice := (o.Budget - o.Budget/5 - o.Budget/6 - o.Budget/8) / time.Duration(len(o.Threads))

	reads := s.measureReads(readSlice)
	if err := s.measureComputes(computeSlice); err != nil {
		return nil, err
	}
	if s.res.Batched, err = s.measureBatched(f, batchSlice); err != nil {
		return nil, err
	}
	stack, maxRows := s.buildStack()
	s.measureThreads(reads, stack, maxRows, gemvSlice)
	if o.Q2_0 {
		stack = nil
		if s.res.Q2_0, err = s.measureQ2_0(o.Budget / 4 / time.Duration(len(o.Threads))); err != nil {
			return nil, err
		}
	}
	s.res.ElapsedSeconds = time.Since(start).Seconds()
	return s.res, nil
}

// session is one Run: its options, the result it fills, and what one
// phase hands the next.
type session struct {
	o   Options
	res *Result
	rng *rand.Rand

	// ks: the native layout's kernel, the tq2_0 layout's, then the TQ2_0
	// file's unless the tq2_0 layout runs it (measureGEMV's convention)
	native, layout, file kernel
	ks                   []kernel
	roles                [][]string

	base     []*matrix   // one matrix per shape
	acts     map[int]act // per distinct K
	layerTQ2 int64       // the TQ2_0 bytes of one layer (base)
	// gamma[kernel][threads][K]: median ns per 32 weights per thread, the
	// kernel indexed as in ks
	gamma []map[int]map[int]float64
}

// progress writes one line to o.Progress, when set.
func (s *session) progress(format string, args ...any) {
	if s.o.Progress != nil {
		fmt.Fprintf(s.o.Progress, "advise: "+format+"\n", args...)
	}
}

// newResult is the result before any measurement: the machine, the rule
// for features f, and what o asks.
func newResult(o Options, f ckern.Features) *Result {
	return &Result{
		CPU: cpuInfo(), Build: o.Build, BuiltKernels: BuiltNames(f),
		Rule:  RuleFor(f, o.Kernel),
		Model: o.Model, Z: o.Z, ZSource: o.ZSource, FP16Scales: !o.F32,
		Roofline:        "T = max(B / beta, gamma) per 32 weights (DESIGN.md §1): B bytes read, beta one thread's share of the streaming-read bandwidth, gamma the kernel's time per thread with its data in cache, as many threads running",
		ReadBufferBytes: o.ReadBytes,
		BudgetSeconds:   o.Budget.Seconds(),
		Notes:           slices.Clone(o.Notes),
	}
}

// pickKernels picks the kernels timed for features f (the rule's, the
// tq2_0 layout's, the TQ2_0 file's) and notes what they run.
func (s *session) pickKernels(f ckern.Features) error {
	o, res := s.o, s.res
	native, err := bitcosKernel(res.Rule.Kernel, o.Build)
	if err != nil {
		return fmt.Errorf("the rule picks %s: %w", res.Rule.Kernel, err)
	}
	file := tq2Kernel(hasAVX2(f))
	layout, err := tq2LayoutKernel(res.Rule, file, o.F32, hasAVX2(f))
	if err != nil {
		return err
	}
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
	s.native, s.layout, s.file, s.ks, s.roles = native, layout, file, ks, roles
	return nil
}

// noteSetting notes what in the setting may colour the timings: buffers
// near the cache, the loader's environment variables, threads beyond the
// CPUs.
func (s *session) noteSetting() {
	o, res := s.o, s.res
	if l3 := int64(cpuid.CPU.Cache.L3); l3 > 0 && min(o.ReadBytes, o.StackBytes) < 4*l3 {
		res.Notes = append(res.Notes, fmt.Sprintf("the read buffer (%d MiB) or the GEMV stack (%d MiB of TQ2_0) is under 4x the L3 (%d MiB): part of it may come from cache", o.ReadBytes>>20, o.StackBytes>>20, l3>>20))
	}
	for _, env := range []string{"GGML_BITCOS_LAYOUT"} {
		if v, ok := os.LookupEnv(env); ok {
			res.Notes = append(res.Notes, fmt.Sprintf("%s=%s is set: llama.cpp would follow it; advise shows the rule without it (--kernel forces a kernel here)", env, v))
		}
	}
	if runtime.NumCPU() < slices.Max(o.Threads) {
		res.Notes = append(res.Notes, fmt.Sprintf("%d threads on %d logical CPUs: threads share cores", slices.Max(o.Threads), runtime.NumCPU()))
	}
}

// generate makes the data: one matrix per shape and one activation per
// distinct K, each matrix checked against every kernel, and the kernels
// that share a float order against each other.
func (s *session) generate() error {
	o, res := s.o, s.res
	s.progress("generating %v at z = %.3f", o.Shapes, o.Z)
	s.rng = rand.New(rand.NewPCG(o.Seed, 0xad1e))
	s.base = make([]*matrix, len(o.Shapes))
	s.acts = map[int]act{}
	base, acts := s.base, s.acts
	var err error
	for i, sh := range o.Shapes {
		if base[i], err = genMatrix(s.rng, sh, o.Z, !o.F32); err != nil {
			return err
		}
		if _, ok := acts[sh.K]; !ok {
			acts[sh.K] = newAct(s.rng, sh.K)
		}
		for _, k := range s.ks {
			if err := check(k, base[i], acts[sh.K]); err != nil {
				return fmt.Errorf("results wrong before timing (a bug): %w", err)
			}
		}
		if s.layout.F32 && s.layout.order == s.native.order {
			if err := sameBits(s.layout, s.native, base[i], acts[sh.K]); err != nil {
				return fmt.Errorf("the tq2_0 layout's kernel and the native layout's disagree (a bug): %w", err)
			}
		} else if len(s.ks) == 3 && s.layout.order == s.file.order {
			if err := sameBits(s.layout, s.file, base[i], acts[sh.K]); err != nil {
				return fmt.Errorf("the tq2_0 layout's kernel and the TQ2_0 file's disagree (a bug): %w", err)
			}
		}
		w32 := float64(sh.K*sh.Rows) / 32
		res.Shapes = append(res.Shapes, ShapeInfo{Shape: sh,
			BitcosBytes32: float64(base[i].bitcosBytes()) / w32, TQ2Bytes32: float64(len(base[i].tq2)) / w32})
		s.layerTQ2 += int64(len(base[i].tq2))
	}
	return nil
}

// measureReads measures the read bandwidth at each thread count, slice
// each, in a buffer freed afterwards.
func (s *session) measureReads(slice time.Duration) []Summary {
	s.progress("read bandwidth (%d MiB buffer)", s.o.ReadBytes>>20)
	buf := readBuffer(s.o.ReadBytes)
	runtime.GC()
	reads := make([]Summary, len(s.o.Threads))
	for i, t := range s.o.Threads {
		reads[i] = measureRead(buf, t, slice)
	}
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	return reads
}

// measureComputes measures each kernel's compute term (gamma) at each
// thread count and distinct K, slice each, on matrices that stay in cache,
// and records them in res.Kernels.
func (s *session) measureComputes(slice time.Duration) error {
	o := s.o
	s.progress("compute terms, data in cache")
	// per distinct K, a matrix of cacheRows rows that stays in cache
	cached := map[int]*matrix{}
	for _, m := range s.base {
		if cached[m.K] != nil {
			continue
		}
		var err error
		if cached[m.K], err = genMatrix(s.rng, Shape{K: m.K, Rows: cacheRows(m.K)}, o.Z, !o.F32); err != nil {
			return err
		}
	}
	gamma := make([]map[int]map[int]float64, len(s.ks))
	for i, k := range s.ks {
		gamma[i] = map[int]map[int]float64{}
		kr := KernelResult{Name: k.Name, Build: k.Build, Layout: LayoutNative, Roles: s.roles[i]}
		if k.TQ2 {
			kr.Layout = LayoutTQ2
		}
		for _, t := range o.Threads {
			gamma[i][t] = map[int]float64{}
			for _, m := range s.base {
				if _, done := gamma[i][t][m.K]; done {
					continue
				}
				c := cached[m.K]
				sum := measureCompute(k, c, s.acts[m.K], t, slice)
				gamma[i][t][m.K] = sum.Median
				kr.Compute = append(kr.Compute, ComputeResult{Threads: t, K: m.K, Rows: c.Rows, Ns32: sum})
			}
		}
		s.res.Kernels = append(s.res.Kernels, kr)
	}
	s.gamma = gamma
	return nil
}

// buildStack copies the base matrices into a stack of layers of at least
// o.StackBytes of TQ2_0, records its size in res.Stack, and returns it with
// its largest row count.
func (s *session) buildStack() (stack []*matrix, maxRows int) {
	res := s.res
	layers := int(max(1, (s.o.StackBytes+s.layerTQ2-1)/s.layerTQ2))
	s.progress("stack of %d layers", layers)
	for l := range layers {
		for _, m := range s.base {
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
	return stack, maxRows
}

// shapeCosts is the roofline's costs of each shape at t threads: the bytes
// per 32 weights and the measured compute terms.
func (s *session) shapeCosts(t int) []ShapeCost {
	sc := make([]ShapeCost, len(s.base))
	for i, m := range s.base {
		sc[i] = ShapeCost{Weights: float64(m.K * m.Rows),
			Bitcos: Cost{Bytes32: s.res.Shapes[i].BitcosBytes32, Compute32: s.gamma[0][t][m.K]},
			TQ2:    Cost{Bytes32: s.res.Shapes[i].TQ2Bytes32, Compute32: s.gamma[1][t][m.K]},
			File:   Cost{Bytes32: s.res.Shapes[i].TQ2Bytes32, Compute32: s.gamma[len(s.ks)-1][t][m.K]}}
	}
	return sc
}

// measureThreads times the GEMVs over the stack at each thread count, slice
// each, against the roofline's prediction from that count's read bandwidth
// (reads), and records them in res.Threads.
func (s *session) measureThreads(reads []Summary, stack []*matrix, maxRows int, slice time.Duration) {
	res := s.res
	out := make([]float32, maxRows)
	counters := make([]atomic.Int64, len(stack))
	w32 := float64(res.Stack.Weights) / 32
	for i, t := range s.o.Threads {
		s.progress("GEMV at %d thread(s)", t)
		tr := ThreadResult{Threads: t, ReadGBs: reads[i], Beta: reads[i].Median / float64(t), RuleLayout: res.Rule.Layout}
		tr.Predicted = Predict(s.shapeCosts(t), tr.Beta)
		tr.PredictedWinner = Winner(tr.Predicted.Ratio)
		tr.Measured = measureGEMV(s.ks, stack, s.acts, out, t, counters, slice)
		tr.Measured.BitcosNs32 = tr.Measured.BitcosMs.Median * 1e6 * float64(t) / w32
		tr.Measured.TQ2Ns32 = tr.Measured.TQ2Ms.Median * 1e6 * float64(t) / w32
		tr.Measured.FileNs32 = tr.Measured.FileMs.Median * 1e6 * float64(t) / w32
		tr.Agrees = tr.Measured.Verdict.Winner == res.Rule.Layout
		res.Threads = append(res.Threads, tr)
	}
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
