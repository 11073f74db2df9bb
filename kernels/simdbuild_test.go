package kernels

import (
	"testing"

	"github.com/gguf-bitcos/gguf-bitcos/kernels/internal/ckern"
)

// simd sets why a SIMD build of v does not run here ("" when it does) and
// whether that build is lost. compiled: the build took its ISA (its
// bitcos_have_* says so); cpu: this CPU has that ISA. A build compiled as its
// fallback on a CPU that has the ISA is lost: a dropped target pragma or
// flag would otherwise leave every test green while it checks only the
// fallback, so notRun fails the test for it. Only under GCC: the shims set
// each ISA with GCC target pragmas, which other compilers (clang) ignore.
func (v cVariant) simd(compiled, cpu bool, fallback, needs string) cVariant {
	switch {
	case !compiled:
		v.why, v.lost = "compiled as the "+fallback, cpu && ckern.GCC()
	case !cpu:
		v.why = "compiled only: CPU lacks " + needs
	}
	return v
}

// notRun logs the variants that cannot run here and fails the test for a
// lost build.
func notRun(t *testing.T, vs []cVariant) {
	t.Helper()
	for _, v := range vs {
		switch {
		case v.lost:
			t.Errorf("%s: %s, on a CPU that has its ISA, built by GCC: its target pragma or flag is lost", v.name, v.why)
		case v.why != "":
			t.Logf("%s: not run: %s", v.name, v.why)
		}
	}
}
