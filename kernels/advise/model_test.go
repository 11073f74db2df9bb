package advise

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestFromModel: the largest ternary shapes, the zero density and the
// scale kind of the committed fixtures (stats --sample's estimate of z).
func TestFromModel(t *testing.T) {
	for _, tc := range []struct {
		file   string
		z      float64 // stats' exact z of the file
		f32    bool
		shapes []Shape
		note   string
	}{
		{"tiny-tq2_0.gguf", 0.4264, false, []Shape{{256, 512}, {512, 256}}, ""},
		{"tiny-tq1_0.gguf", 0.4410, false, []Shape{{256, 512}, {512, 256}}, ""},
		{"tiny-i2_s.gguf", 0.3751, true, []Shape{{256, 512}, {512, 256}}, ""},
		{"tiny-q2_0.gguf", 0.3960, false, []Shape{{256, 512}, {512, 256}}, "one scale per 64"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var o Options
			if err := FromModel("../../testdata/"+tc.file, &o); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(o.Shapes, tc.shapes) || o.F32 != tc.f32 || o.ZSource != "model" || !strings.HasSuffix(o.Model, tc.file) ||
				math.Abs(o.Z-tc.z) > 0.03 {
				t.Errorf("got shapes %v, f32 %v, z %v (%s); want %v, %v, about %v", o.Shapes, o.F32, o.Z, o.ZSource, tc.shapes, tc.f32, tc.z)
			}
			if (tc.note == "") != (len(o.Notes) == 0) || tc.note != "" && !strings.Contains(o.Notes[0], tc.note) {
				t.Errorf("notes %q, want one containing %q", o.Notes, tc.note)
			}
		})
	}
	var o Options
	if err := FromModel("../../testdata/none.gguf", &o); err == nil {
		t.Error("a missing file gave no error")
	}
}
