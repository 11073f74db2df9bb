package units

import "testing"

func TestCountAndChange(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(0, "tensor"), "0 tensors"},
		{Count(1, "tensor"), "1 tensor"},
		{Count(14, "ternary tensor"), "14 ternary tensors"},
		{Change(1000, 1000), "the same"},
		{Change(1000, 995), "0.5% less"},
		{Change(1000, 1004), "0.4% more"},
		{Change(0, 10), "more"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
