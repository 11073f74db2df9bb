package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestCompletion: the shell completes enum flag values.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "repack", "m.gguf", "--head", ""}, []string{"q8_0", "q6_K", "q4_K", "keep"}},
		{[]string{"__complete", "gen", "o.gguf", "--type", ""}, []string{"tq2_0", "i2_s", "f16"}},
		{[]string{"__complete", "gen", "o.gguf", "--arch", ""}, []string{"bitnet-b1.58", "llama"}},
		{[]string{"__complete", "advise", "--build", ""}, []string{"native", "avx2", "baseline"}},
	} {
		var o, e bytes.Buffer
		run(c.args, &o, &e)
		for _, w := range c.want {
			if !strings.Contains(o.String(), w+"\n") {
				t.Errorf("%v: completions %q lack %q", c.args, o.String(), w)
			}
		}
	}
}
