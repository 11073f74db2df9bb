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
// arguments; saving log-probs, it writes the model file's bytes as the
// log-probs (a header of a 0-token text first) and prints the final PPL in
// MODEL.ppl; in KL-divergence mode it prints the summary in MODEL.kl.
func fakePerplexity(t *testing.T) (bin, argLog string) {
	t.Helper()
	dir := t.TempDir()
	bin, argLog = filepath.Join(dir, "llama-perplexity"), filepath.Join(dir, "args")
	script := fmt.Sprintf(`#!/bin/sh
echo "$@" >> %q
kld=no
while [ $# -gt 0 ]; do
  case "$1" in
  -m) model=$2; shift ;;
  --kl-divergence-base) logits=$2; shift ;;
  --kl-divergence) kld=yes ;;
  esac
  shift
done
if [ $kld = yes ]; then cat "$model.kl"; exit 0; fi
{ printf '_logits_\000\000\000\000\000\000\000\000\000\000\000\000'; cat "$model"; } > "$logits"
echo "Final estimate: PPL = $(cat "$model.ppl") +/- 11.69"
`, argLog)
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, argLog
}

// klSummary is klOutput with another mean KLD.
func klSummary(meanKLD string) string {
	return strings.Replace(klOutput, "Mean    KLD:   0.000119", "Mean    KLD:   "+meanKLD, 1)
}

// TestRunAndParity: identical saved logits pass with two runs and no
// floor; logits that differ fail unless a --max-kld is given, and then are
// judged against the floor of the base against itself.
func TestRunAndParity(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	cases := []struct {
		name              string
		candBytes         string // the candidate's "logits"; the base's are "logits"
		candPPL           string // the base's is 608.5926
		floorKLD, candKLD string
		maxKLD            float64
		allowDelta        bool
		runs              int
		want              string // in Parity's error; "" for parity
	}{
		{"identical", "logits", "608.5926", "", "", 0, false, 2, ""},
		{"identical, PPL printed differently", "logits", "608.5927", "", "", 0, false, 2, "parity fails: PPL 608.5927 vs 608.5926"},
		{"differ, strict", "logitz", "608.5926", "0.000001", "0.000001", 0, false, 4,
			"parity fails: the candidate's logits differ from the base's (1 of 3 stored 16-bit words differ, the first at evaluated token 0 of 0); mean KLD 0.000001 against the floor 0.000001"},
		{"differ, at the floor", "logitz", "608.5926", "0.000001", "0.000001", 1e-6, false, 4, ""},
		{"differ, above the floor", "logitz", "608.5926", "0.000001", "0.000119", 1e-6, false, 4, "parity fails: mean KLD 0.000119 is 0.000118 above the floor 0.000001 of the base against itself, not below 1e-06"},
		{"differ, PPL too", "logitz", "608.6171", "0.000001", "0.000001", 1e-6, false, 4, "parity fails: PPL 608.6171 vs 608.5926"},
		{"differ, PPL allowed", "logitz", "608.6171", "0.000001", "0.000001", 1e-6, true, 4, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin, argLog := fakePerplexity(t)
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.gguf"), filepath.Join(dir, "b.gguf")
			for p, content := range map[string]string{a: "logits", a + ".ppl": "608.5926", a + ".kl": klSummary(c.floorKLD),
				b: c.candBytes, b + ".ppl": c.candPPL, b + ".kl": klSummary(c.candKLD)} {
				os.WriteFile(p, []byte(content), 0o644)
			}
			r, err := Run(Options{Bin: bin, Base: a, Candidate: b, Text: "t.txt", Threads: 2, Extra: []string{"-ngl", "99"},
				BaseExtra: []string{"--rpc", "h:1"}, CandidateExtra: []string{"--rpc", "h:2"}})
			if err != nil {
				t.Fatal(err)
			}
			err = r.Parity(c.maxKLD, c.allowDelta)
			if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
				t.Fatalf("parity: %v, want %q", err, c.want)
			}
			if r.LogitsIdentical != (c.runs == 2) || (c.runs == 2 && !strings.HasPrefix(r.Floor, "none needed")) ||
				(c.runs == 4 && !strings.HasPrefix(r.Floor, "the base against its own saved log-probs")) {
				t.Fatalf("identical %v, floor %q", r.LogitsIdentical, r.Floor)
			}
			log, _ := os.ReadFile(argLog)
			lines := strings.Split(strings.TrimSpace(string(log)), "\n")
			if len(lines) != c.runs || !strings.HasPrefix(lines[0], "-m "+a+" -f t.txt -c 512 --kl-divergence-base ") ||
				!strings.HasSuffix(lines[0], "base.kld -t 2 -ngl 99 --rpc h:1") || !strings.HasPrefix(lines[1], "-m "+b+" -f t.txt") ||
				!strings.HasSuffix(lines[1], "candidate.kld -t 2 -ngl 99 --rpc h:2") {
				t.Fatalf("llama-perplexity ran with %q", lines)
			}
			if c.runs == 4 && (!strings.HasPrefix(lines[2], "-m "+b+" --kl-divergence ") || !strings.HasSuffix(lines[2], "base.kld -t 2 -ngl 99 --rpc h:2") ||
				!strings.HasPrefix(lines[3], "-m "+a+" --kl-divergence ") || !strings.HasSuffix(lines[3], "base.kld -t 2 -ngl 99 --rpc h:1")) {
				t.Fatalf("the KLD runs: %q", lines[2:])
			}
			saved := strings.Fields(lines[0])[7]
			if _, err := os.Stat(filepath.Dir(saved)); err == nil {
				t.Fatalf("the logits directory %s was left behind", filepath.Dir(saved))
			}
		})
	}
}

// TestKLDHasNoNegativeZero: llama-perplexity's rounding can print a mean
// KLD of -0.000000; it is printed 0.000000.
func TestKLDHasNoNegativeZero(t *testing.T) {
	for x, want := range map[float64]string{-0.0000001: "0.000000", -0.0: "0.000000", 0.000119: "0.000119", -0.00002: "-0.000020"} {
		if got := KLD(x); got != want {
			t.Errorf("KLD(%v) = %q, want %q", x, got, want)
		}
	}
}
