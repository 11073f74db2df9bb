package repack

import (
	"fmt"
	"os"

	"github.com/gguf-bitcos/gguf-bitcos/format"
)

// Options control Repack.
type Options struct {
	// Output is the path written; default: DefaultOutput.
	Output string
	// Workers is the number of tensors analysed and encoded in parallel
	// (default GOMAXPROCS). Memory is about two tensors per worker.
	Workers int
	// Ternarize ternarizes the projection weights of a float (F16, BF16,
	// F32) master with BitNet's absmean rule: the one lossy path (master.go).
	Ternarize bool
	// Heads maps head tensor names to the quantized type they get
	// (format.HeadTypes: q8_0, q6_K, q4_K; see HeadPlan). Lossy, by
	// request only.
	Heads map[string]format.HeadType
	// Split, if set, writes shards as llama-gguf-split does
	// (OUTPUT-without-.gguf-00001-of-0000N.gguf) instead of one file
	// (shards.go).
	Split SplitOptions
	// Force writes the output even when nothing gains: no tensor becomes
	// BITCOS (or is ternarized, or has its head quantized), so the output
	// would only be the input with bitcos.* keys, a little larger.
	Force bool
	// Replace lets the output replace an existing file (never the input);
	// without it an existing output is refused before any work.
	Replace bool
	// Progress, if set, is called from one goroutine as the job goes on,
	// with the phase and the work done of that phase's total, in bytes:
	// for sharded output "plan" (the candidates' bytes), then "repack"
	// (the input's bytes), then "flush", the flush to disk with the
	// read-back check, whose total is -1 (not measurable as it goes), and
	// "done" (1 of 1) once the output has its name.
	Progress func(phase string, done, total int64)
}

// Report summarises a repack.
type Report struct {
	Input       string     `json:"input"`
	Output      string     `json:"output"`
	InputBytes  int64      `json:"input_bytes"`
	OutputBytes int64      `json:"output_bytes"`
	Converted   int        `json:"converted"`
	Kept        int        `json:"kept"`
	Tensors     []Decision `json:"tensors"`
	// Shards are the files written when splitting.
	Shards []string `json:"shards,omitempty"`
	// Canonical is empty when an unpack reproduces the input byte for byte,
	// else why it cannot (the input's own layout is not canonical).
	Canonical string `json:"canonical_note,omitempty"`
	// NotWritten says why no output was written (nothing gains; see
	// Options.Force), or is empty.
	NotWritten string `json:"not_written,omitempty"`
	// Warnings are what the user must hear even though the repack worked:
	// input bytes the header does not describe (not copied), no tensors.
	Warnings []string `json:"warnings,omitempty"`
	// floatMaster: the input has float projections that --ternarize would
	// ternarize, and it was not asked (NotWritten then says so).
	floatMaster bool
}

// DefaultOutput is where repack writes when no output is given: the
// source type's label in the name replaced by BITCOS, or -BITCOS added
// (identity.go).
func DefaultOutput(in string) string { return outputName(in) }

// Repack rewrites the GGUF file at in with every ternary tensor that gets
// smaller stored as BITCOS. The output is written unnamed (atomicfile) in the
// target directory, checked, and only then named; the input is only read.
//
// One pass over the data: the header is reserved first (header.go), each
// candidate tensor is decoded, decided and encoded by a worker, the writer
// streams the results in order, and the real header goes into the reserved
// room at the end. Sharded output plans first (shards.go). The steps are
// pipeline.go's, around one job.
func Repack(in string, opt Options) (*Report, error) {
	f, done, err := openJoined(in)
	if err != nil {
		return nil, err
	}
	defer done()
	defer f.Close()
	j, err := newJob(f, in, opt)
	if err != nil {
		return nil, err
	}
	if j.opt.Split.active() {
		return j.writeShards()
	}
	return j.writeFile()
}

// summarize counts the decisions dec into r and reports whether the output
// is to be written: when a tensor gains (or force), else r says why not.
func (r *Report) summarize(dec []Decision, force bool) bool {
	gains := false
	for _, d := range dec {
		switch d.Layout {
		case LayoutBitcos:
			r.Converted++
		case LayoutKept:
			r.Kept++
		}
		gains = gains || d.Layout == LayoutBitcos || d.Layout == LayoutTQ2 || d.head != nil
	}
	r.Tensors = dec
	if !gains && !force {
		r.NotWritten = "no tensor is smaller as BITCOS, so the output would only be the input with bitcos.* keys; nothing was written (--force writes it anyway)"
		if r.floatMaster {
			r.NotWritten += "; this is a float master: --ternarize makes its projections ternary (BitNet's absmean rule, lossy) and stores them as BITCOS"
		}
		r.Output, r.OutputBytes = "", 0
		return false
	}
	return true
}

// undescribed warns of input bytes that no tensor of the header covers:
// repack copies only what the header describes.
func undescribed(f *input) []string {
	end := f.DataOffset
	for _, t := range f.Tensors {
		end = max(end, f.DataOffset+pad(t.Offset+t.Size, f.Alignment))
	}
	var w []string
	if len(f.Tensors) == 0 {
		w = append(w, fmt.Sprintf("%s: the header lists no tensors: the output holds its metadata only", f.Path))
	}
	if rest := f.FileSize - int64(end); rest > 0 {
		w = append(w, fmt.Sprintf("%s: %d bytes (%.1f%% of the file) after the end of the data the header describes are not tensor data by this header, and are not copied",
			f.Path, rest, 100*float64(rest)/float64(f.FileSize)))
	}
	return w
}

// inputPerm is the mode outputs made from in get: as readable as the input.
func inputPerm(in string) os.FileMode {
	if st, err := os.Stat(in); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}
