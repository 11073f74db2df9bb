package modelgen

import (
	"strings"
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// TestHeadType: the head may be a float type, or the ternary type itself (a
// ternary token embedding and output, written like the projections); any
// other type, or a float master's own type, is refused or stays a float head.
func TestHeadType(t *testing.T) {
	cases := []struct {
		name     string
		typ      ggufx.GGMLType
		head     ggufx.GGMLType
		wantErr  string
		wantKind int
	}{
		{"f16 head", ggufx.TypeTQ2_0, ggufx.TypeF16, "", kindEmbed},
		{"ternary head", ggufx.TypeTQ2_0, ggufx.TypeTQ2_0, "", kindTernary},
		{"ternary I2_S head", ggufx.TypeI2_S, ggufx.TypeI2_S, "", kindTernary},
		{"f16 master, f16 head", ggufx.TypeF16, ggufx.TypeF16, "", kindEmbed},
		{"another ternary type", ggufx.TypeTQ2_0, ggufx.TypeTQ1_0, "not F32, F16, BF16 or the ternary type", 0},
		{"q8_0 head", ggufx.TypeTQ2_0, ggufx.TypeQ8_0, "not F32, F16, BF16", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Small(c.typ, 1)
			s.HeadType, s.Output = c.head, true
			if !checkSpec(t, &s, c.wantErr) {
				return
			}
			for _, ts := range s.plan() {
				if ts.info.Name == "token_embd.weight" || ts.info.Name == "output.weight" {
					if ts.kind != c.wantKind || ts.info.Type != c.head {
						t.Errorf("%s: kind %d type %v, want kind %d type %v", ts.info.Name, ts.kind, ts.info.Type, c.wantKind, c.head)
					}
				}
			}
		})
	}
}

// checkSpec runs s.check: with wantErr, it must fail saying so (checkSpec
// returns false: nothing more to test); without, it must pass (true).
func checkSpec(t *testing.T, s *Spec, wantErr string) bool {
	t.Helper()
	err := s.check()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one saying %q", err, wantErr)
		}
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}
