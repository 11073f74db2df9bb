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

	Roofline        string         `json:"roofline"`
	ReadBufferBytes int64          `json:"read_buffer_bytes"`
	Stack           StackInfo      `json:"stack"`
	Kernels         []KernelResult `json:"kernels"` // the native kernel, then TQ2_0's
	Threads         []ThreadResult `json:"threads"`

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

// KernelResult is one kernel's compute term per shape.
type KernelResult struct {
	Name   string `json:"name"`
	Build  string `json:"build,omitempty"`
	Layout string `json:"layout"` // the layout it multiplies: LayoutNative or LayoutTQ2
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

// Measured is the GEMV over the stack, BITCOS and TQ2_0 alternated.
type Measured struct {
	BitcosMs Summary `json:"bitcos_ms"` // one pass over the stack
	TQ2Ms    Summary `json:"tq2_0_ms"`
	// Per thread: median pass time x threads / (weights / 32), comparable
	// with the prediction.
	BitcosNs32 float64   `json:"bitcos_ns_per_32"`
	TQ2Ns32    float64   `json:"tq2_0_ns_per_32"`
	Ratios     []float64 `json:"ratios"` // per round, TQ2_0's time over BITCOS's
	Verdict    Verdict   `json:"verdict"`
}
