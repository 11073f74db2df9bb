package ppl

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// klOutput is the summary llama-perplexity --kl-divergence printed at the
// pin (BITCOS vs TQ2_0 of a generated model).
const klOutput = `====== Perplexity statistics ======
Mean PPL(Q)                   : 608.592616 ±  11.696870
Mean PPL(base)                : 608.617138 ±  11.696717
Cor(ln(PPL(Q)), ln(PPL(base))): 100.00%
Mean ln(PPL(Q)/PPL(base))     :  -0.000040 ±   0.000190
Mean PPL(Q)/PPL(base)         :   0.999960 ±   0.000190
Mean PPL(Q)-PPL(base)         :  -0.024522 ±   0.115759

====== KL divergence statistics ======
Mean    KLD:   0.000119 ±   0.000002
Maximum KLD:   0.001353
99.9%   KLD:   0.000760

====== Token probability statistics ======
Same top p: 99.135 ± 0.087 %
`

func TestParseKLD(t *testing.T) {
	r, err := parseKLD([]byte(klOutput))
	if err != nil {
		t.Fatal(err)
	}
	if r.PPLCandText != "608.592616" || r.PPLBaseText != "608.617138" || r.MeanKLD != 0.000119 ||
		r.MaxKLD != 0.001353 || r.SameTopP != 99.135 {
		t.Fatalf("%+v", r)
	}
	if _, err := parseKLD([]byte("Mean PPL(Q) : 1.0\n")); err == nil {
		t.Fatal("a truncated summary parsed")
	}
}

// fakePerplexity writes a stand-in for llama-perplexity: it records its
// arguments and prints what the real one prints in each mode.
func fakePerplexity(t *testing.T, finalPPL, klSummary string) (bin, argLog string) {
	t.Helper()
	dir := t.TempDir()
	bin, argLog = filepath.Join(dir, "llama-perplexity"), filepath.Join(dir, "args")
	os.WriteFile(filepath.Join(dir, "kl.txt"), []byte(klSummary), 0o644)
	script := fmt.Sprintf(`#!/bin/sh
echo "$@" >> %q
case " $* " in
*" --kl-divergence "*) cat %q ;;
*) echo "Final estimate: PPL = %s +/- 11.69" ;;
esac
`, argLog, filepath.Join(dir, "kl.txt"), finalPPL)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argLog
}

func TestRunAndParity(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	cases := []struct {
		name, final string
		maxKLD      float64
		allowDelta  bool
		want        string // in Parity's error; "" for parity
	}{
		{"PPL differs", "608.6171", 1e-6, false, "parity fails: PPL 608.5926 vs 608.6171"},
		{"PPL differs, allowed, KLD too large", "608.6171", 1e-6, true, "mean KLD 0.000119 is not below 1e-06"},
		{"parity", "608.5926", 1e-3, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin, argLog := fakePerplexity(t, c.final, klOutput)
			r, err := Run(Options{Bin: bin, Base: "a.gguf", Candidate: "b.gguf", Text: "t.txt", Threads: 2, Extra: []string{"-ngl", "99"},
				BaseExtra: []string{"--rpc", "h:1"}, CandidateExtra: []string{"--rpc", "h:2"}})
			if err != nil {
				t.Fatal(err)
			}
			err = r.Parity(c.maxKLD, c.allowDelta)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("parity: %v, want %q", err, c.want)
			}
			log, _ := os.ReadFile(argLog)
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "-m a.gguf -f t.txt -c 512 --kl-divergence-base ") ||
				!strings.HasSuffix(lines[0], "-t 2 -ngl 99 --rpc h:1") || !strings.HasPrefix(lines[1], "-m b.gguf --kl-divergence ") ||
				!strings.HasSuffix(lines[1], "-t 2 -ngl 99 --rpc h:2") {
				t.Fatalf("llama-perplexity ran with %q", lines)
			}
			saved := strings.Fields(lines[0])[7]
			if _, err := os.Stat(filepath.Dir(saved)); err == nil {
				t.Fatalf("the logits directory %s was left behind", filepath.Dir(saved))
			}
		})
	}
}
