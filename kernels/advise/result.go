package advise

// Result is what Run measured and concluded; `gguf-bitcos advise --json`
// prints it.
type Result struct {
	CPU   CPU    `json:"cpu"`
	Build string `json:"build"` // BuildNative, BuildAVX2, BuildBaseline
	// BuiltKernels: bitcos_cpu_features.built, by name: the kernels this
	// build compiled with their SIMD paths and this CPU runs.
	BuiltKernels []string `json:"built_kernels"`
	Rule         Rule     `json:"rule"`

	Model      string      `json:"model,omitempty"`
	Z          float64     `json:"zero_density"`
	ZSource    string      `json:"zero_density_source"` // "default", "flag", "model"
	FP16Scales bool        `json:"fp16_scales"`         // one fp16 scale per 256 weights (else a per-tensor f32)
	Shapes     []ShapeInfo `json:"shapes"`

	Roofline        string    `json:"roofline"`
	ReadBufferBytes int64     `json:"read_buffer_bytes"`
	Stack           StackInfo `json:"stack"`
	// Kernels: the native layout's kernel, the tq2_0 layout's, then the
	// TQ2_0 file's (ggml's) when it is not the tq2_0 layout's; Roles says
	// which is which.
	Kernels []KernelResult `json:"kernels"`
	Threads []ThreadResult `json:"threads"`

	// Batched: the batched kernel (prompt processing, bitcos_gemm.c) of
	// each layout against the TQ2_0 file's kernel run per (row, column),
	// with the data in cache.
	Batched *BatchedResult `json:"batched,omitempty"`

	// Q2_0: with Options.Q2_0, the two CPU layouts of weights with scales
	// per 64 (a Q2_0 source's), which the kernels above do not run.
	Q2_0 *Q2_0Result `json:"q2_0_sources,omitempty"`

	BudgetSeconds  float64  `json:"budget_seconds"`
	ElapsedSeconds float64  `json:"elapsed_seconds"`
	Notes          []string `json:"notes,omitempty"`
}

// CPU names the machine (cpuid).
type CPU struct {
	Brand        string   `json:"brand"`
	Vendor       string   `json:"vendor"`
	Family       int      `json:"family"`
	Model        int      `json:"model"`
	LogicalCores int      `json:"logical_cores"`
	L3Bytes      int      `json:"l3_bytes"`
	Features     []string `json:"features"` // the ISA extensions the kernels use
}

// Rule is the loader's choice on this machine: bitcos_select, then
// bitcos_select_layout (kernels/c/bitcos_select.h).
type Rule struct {
	Kernel       string `json:"kernel"`
	KernelWhy    string `json:"kernel_why"`
	KernelForced bool   `json:"kernel_forced"`
	Order        int    `json:"order"` // enum bitcos_order
	Layout       string `json:"layout"`
	LayoutWhy    string `json:"layout_why"`
	// TQ2_0VNNI: the choice carries tq2_0_vnni (bitcos_choice): weights in
	// the tq2_0 layout run bitcos_tq2_0_vec_dot_q8_K_vnni, not ggml's kernel.
	TQ2_0VNNI bool `json:"tq2_0_vnni"`
}

// ShapeInfo is one matrix shape of the model, with its bytes per 32
// weights in each layout as generated.
type ShapeInfo struct {
	Shape
	BitcosBytes32 float64 `json:"bitcos_bytes_per_32"`
	TQ2Bytes32    float64 `json:"tq2_0_bytes_per_32"`
}

// StackInfo is the GEMV's working set: Layers copies of one matrix per
// shape, larger than the last-level cache.
type StackInfo struct {
	Layers      int   `json:"layers"`
	Weights     int64 `json:"weights"`
	BitcosBytes int64 `json:"bitcos_bytes"`
	TQ2Bytes    int64 `json:"tq2_0_bytes"`
}

// Roles of a measured kernel.
const (
	RoleNative    = "native"     // the native layout's kernel (bitcos_select's)
	RoleTQ2Layout = "tq2_0"      // the tq2_0 layout's (what patches 0011-0012 run for converted weights)
	RoleFile      = "tq2_0_file" // the TQ2_0 file's in stock llama.cpp (ggml's kernel): the yardstick
)

// KernelResult is one kernel's compute term per shape.
type KernelResult struct {
	Name   string `json:"name"`
	Build  string `json:"build,omitempty"`
	Layout string `json:"layout"` // the layout it multiplies: LayoutNative or LayoutTQ2 (TQ2_0 blocks)
	// Roles: RoleNative, or RoleTQ2Layout and/or RoleFile (both when the
	// tq2_0 layout runs ggml's kernel: one kernel, measured once).
	Roles []string `json:"roles"`
	// Compute: ns per 32 weights with the data in cache, per thread count
	// and distinct K.
	Compute []ComputeResult `json:"compute"`
}

// ComputeResult is a kernel's time with its data in cache at one row
// length (Rows distinct rows, in L2), per thread with Threads threads
// running it at once.
type ComputeResult struct {
	Threads int     `json:"threads"`
	K       int     `json:"k"`
	Rows    int     `json:"rows"`
	Ns32    Summary `json:"ns_per_32"`
}

// ThreadResult is everything at one thread count.
type ThreadResult struct {
	Threads int `json:"threads"`
	// ReadGBs: aggregate streaming-read bandwidth, GB/s; Beta: its median
	// per thread (the roofline's β, bytes per ns).
	ReadGBs         Summary    `json:"read_gb_per_s"`
	Beta            float64    `json:"beta_gb_per_s_per_thread"`
	Predicted       Prediction `json:"predicted"`
	PredictedWinner string     `json:"predicted_winner"`
	Measured        Measured   `json:"measured"`
	// RuleLayout is the rule's layout (the same at every thread count);
	// Agrees: it is the measured winner.
	RuleLayout string `json:"rule_layout"`
	Agrees     bool   `json:"agrees"`
}

// Measured is the GEMV over the stack: the native layout, the tq2_0 layout
// and the TQ2_0 file alternated ("tq2_0" is the tq2_0 layout; where it runs
// ggml's kernel, one pass per round serves it and the file, and its ratio to
// the file is 1).
type Measured struct {
	BitcosMs Summary `json:"bitcos_ms"` // one pass over the stack
	TQ2Ms    Summary `json:"tq2_0_ms"`
	FileMs   Summary `json:"tq2_0_file_ms"`
	// Per thread: median pass time x threads / (weights / 32), comparable
	// with the prediction.
	BitcosNs32 float64 `json:"bitcos_ns_per_32"`
	TQ2Ns32    float64 `json:"tq2_0_ns_per_32"`
	FileNs32   float64 `json:"tq2_0_file_ns_per_32"`
	// Ratios: per round, the tq2_0 layout's time over the native layout's
	// (the verdict's).
	Ratios []float64 `json:"ratios"`
	// NativeVsFile and TQ2VsFile: per round, the TQ2_0 file's time over each
	// layout's (above 1: faster than stock llama.cpp on the TQ2_0 file).
	NativeVsFile Summary `json:"native_vs_file"`
	TQ2VsFile    Summary `json:"tq2_0_vs_file"`
	Verdict      Verdict `json:"verdict"`
}

// BatchedResult is the measurement of batches (prompt processing): Columns
// activation columns times the rows of each distinct K of the model (Shapes,
// in cache), the native layout through bitcos_gemm.c's panels decoded from
// the BITCOS planes, the tq2_0 layout through its panels decoded from the
// TQ2_0 blocks made at load (f32 blocks for a per-tensor f32 scale), both
// in groups of GroupRows rows (two panels of PanelRows), and the TQ2_0 file
// through ggml's TQ2_0
// kernel once per (row, column), as ggml's mul_mat runs it. Where the
// llama.cpp build modelled runs no batched kernel, NotRun says so and
// nothing is measured.
type BatchedResult struct {
	Columns   int    `json:"columns"`    // BatchColumns: one call of bitcos_gemm_q8_K in patch 0012
	PanelRows int    `json:"panel_rows"` // BITCOS_GEMM_ROWS
	GroupRows int    `json:"group_rows"` // rows per bitcos_gemm_q8_K call (BITCOS_GEMM_MAX_ROWS: two panels)
	Gemm      string `json:"gemm_build"` // the path of the bitcos_gemm.c build measured (bitcos_gemm_isa); empty with NotRun
	// NotRun: why nothing was measured (the llama.cpp build modelled runs
	// no batched kernel here); empty when measured.
	NotRun       string           `json:"not_run,omitempty"`
	NativeKernel string           `json:"native_kernel"`     // what the native layout's batches run
	TQ2Kernel    string           `json:"tq2_0_kernel"`      // the tq2_0 layout's
	FileKernel   string           `json:"tq2_0_file_kernel"` // the TQ2_0 file's
	Shapes       []Shape          `json:"shapes"`            // one matrix per distinct K: K x rows
	Threads      []BatchedThreads `json:"threads"`
}

// BatchedThreads is the batches at one thread count, every thread running
// each batch at once (as the compute terms): the three alternated round by
// round, each figure in ns per 32 weights per column per thread (a (row,
// column) pair of 32 weights), the Ks weighted by the model's shapes.
type BatchedThreads struct {
	Threads    int     `json:"threads"`
	NativeNs32 Summary `json:"native_ns_per_32"`
	TQ2Ns32    Summary `json:"tq2_0_ns_per_32"`
	FileNs32   Summary `json:"tq2_0_file_ns_per_32"`
	// NativeVsFile and TQ2VsFile: per round, the TQ2_0 file's time over each
	// layout's (above 1: faster than stock llama.cpp on the TQ2_0 file).
	NativeVsFile Summary `json:"native_vs_file"`
	TQ2VsFile    Summary `json:"tq2_0_vs_file"`
	// Ratios: per round, the tq2_0 layout's time over the native layout's
	// (the verdict's).
	Ratios  []float64 `json:"ratios"`
	Verdict Verdict   `json:"verdict"`
	// RuleLayout: the rule's layout (one layout per weight, for single
	// columns and batches alike); Agrees: it is the measured winner.
	RuleLayout string `json:"rule_layout"`
	Agrees     bool   `json:"agrees"`
}
