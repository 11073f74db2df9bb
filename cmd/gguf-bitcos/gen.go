package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
	"github.com/gguf-bitcos/gguf-bitcos/internal/modelgen"
)

func genCmd() *cobra.Command {
	var (
		typ, shape, head, arch string
		seed                   uint64
		experts, expertsUsed   int
		odd, nonTernary, out   bool
		scaleTensors, quiet    bool
		force                  bool
		layers, shards         int
	)
	cmd := &cobra.Command{
		Use:   "gen OUTPUT.gguf | gen OUTPUT.safetensors | gen fixtures DIR",
		Short: "Generate a synthetic bitnet (or llama, dense or MoE) model with realistic ternary statistics (tests, benchmarks)",
		Long: `gen writes a synthetic model: bitnet by default (or llama, dense or MoE with
--arch llama --experts N) with realistic per-tensor zero densities (30-52%),
zero rows, dead neurons and zero-scale blocks, in a stock ternary type or as a
float master. OUTPUT.gguf is a GGUF file that llama.cpp loads;
OUTPUT.safetensors is the same float master as a Hugging Face checkpoint
(config.json beside it; with --shards, OUTPUT-0000i-of-0000N.safetensors and
OUTPUT.safetensors.index.json). 'gen fixtures DIR' writes the committed test
fixtures into DIR (created if missing). No existing file is replaced without
--force, checked before anything is written; each file is named once written.`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "fixtures" {
				if len(args) != 2 {
					return usagef(cmd, "gen fixtures needs a directory")
				}
				return writeFixtures(args[1], force)
			}
			t, ok := ggufx.ParseGGMLType(strings.ToUpper(typ))
			if !ok {
				return fmt.Errorf("unknown type %q", typ)
			}
			var s modelgen.Spec
			switch shape {
			case "small":
				s = modelgen.Small(t, seed)
			case "2b":
				s = modelgen.Shape2B(t, seed)
			case "8b":
				s = modelgen.Shape8B(t, seed)
			case "10b":
				s = modelgen.Shape10B(t, seed)
			default:
				return fmt.Errorf("unknown shape %q (small, 2b, 8b, 10b)", shape)
			}
			if head != "" {
				if s.HeadType, ok = ggufx.ParseGGMLType(strings.ToUpper(head)); !ok {
					return fmt.Errorf("unknown head type %q", head)
				}
			}
			if arch != "" {
				s.Arch = arch
			}
			if layers > 0 {
				s.NLayer = layers
			}
			s.Experts, s.OddTensor, s.NonTernary, s.Output, s.ScaleTensors = experts, odd, nonTernary, out, scaleTensors
			s.ExpertsUsed = expertsUsed
			var progress func(done, total int64)
			if !quiet && term.IsTerminal(int(os.Stderr.Fd())) {
				var bar *progressbar.ProgressBar
				progress = func(done, total int64) {
					if bar == nil {
						bar = progressbar.DefaultBytes(total, "gen")
					}
					bar.Set64(done)
				}
			}
			if len(args) != 1 {
				return usagef(cmd, "one output path (or: gen fixtures DIR)")
			}
			return writeModel(args[0], s, shards, force, progress)
		},
	}
	f := cmd.Flags()
	f.StringVar(&typ, "type", "tq2_0", "ternary type: "+strings.Join(stockTypes(), ", ")+" (or f16/bf16/f32 master)")
	f.StringVar(&shape, "shape", "small", "small, 2b (BitNet b1.58 2B4T's shape, ~1.2 GB), 8b (Llama3-8B-1.58's, ~2.9 GB) or 10b (Falcon3-10B-1.58bit's, ~3.3 GB)")
	f.StringVar(&head, "head", "", "token_embd type (f16, bf16, f32, or the ternary --type itself)")
	f.StringVar(&arch, "arch", "", "general.architecture (bitnet, bitnet-b1.58, or llama: with --experts a Mixtral-style MoE llama.cpp runs)")
	f.Uint64Var(&seed, "seed", 1, "random seed")
	f.IntVar(&layers, "layers", 0, "override the layer count")
	f.IntVar(&shards, "shards", 1, "OUTPUT.safetensors (a float master): split into this many shards plus model.safetensors.index.json")
	f.IntVar(&experts, "experts", 0, "add 3-D expert tensors with this many experts (bitnet archs: to blk.0 only; llama: an MoE FFN in every layer)")
	f.IntVar(&expertsUsed, "experts-used", 0, "llama.expert_used_count (--arch llama; default min(2, --experts))")
	f.BoolVar(&odd, "odd", false, "add a tensor whose row length is not a multiple of 128")
	f.BoolVar(&nonTernary, "non-ternary", false, "put a code 3 into blk.0.attn_q (Q2_0, TQ2_0, I2_S)")
	f.BoolVar(&out, "output-head", false, "add an untied output.weight")
	f.BoolVar(&scaleTensors, "scale-tensors", false, "add BitNet's optional <base>.scale tensors")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&force, "force", false, "replace existing files")
	completeValues(cmd, "type", append(stockTypes(), "f16", "bf16", "f32")...)
	completeValues(cmd, "shape", "small", "2b", "8b", "10b")
	completeValues(cmd, "head", append([]string{"f16", "bf16", "f32"}, stockTypes()...)...)
	completeValues(cmd, "arch", "bitnet", "bitnet-b1.58", "llama")
	return cmd
}

// stockTypes names every registered stock ternary type (format.CodecFor),
// as ggml spells them.
func stockTypes() []string {
	var names []string
	for _, c := range format.StockCodecs() {
		names = append(names, c.Type().String())
	}
	return names
}
