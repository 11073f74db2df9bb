package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The aarch64 tools TestNeonUnderQemu needs (Debian: apt-get install
// gcc-aarch64-linux-gnu qemu-user) and the sysroot qemu loads from.
const (
	neonCC      = "aarch64-linux-gnu-gcc"
	neonQemu    = "qemu-aarch64"
	neonSysroot = "/usr/aarch64-linux-gnu"
)

// TestNeonUnderQemu cross-compiles c/bitcos_neon_tq2.c with the harness in
// testdata/neon twice, with sdot (-march=armv8.2-a+dotprod) and plain NEON
// (-march=armv8-a), runs both under qemu-aarch64 and checks every output bit
// for bit against VecDotQ8KTQ2ARMOrder: the one-column kernel, the batch
// path (codes, one column) and its four-column form, the row converted at
// load (f32 blocks through bitcos_tq2_0_f32_vec_dot_q8_K_neon with a
// per-tensor scale; TQ2_0 blocks through the ARM-order reference), on rows of K = 256 to
// 32768, zero densities 0 to 0.6 plus all-zero and dense rows, fp16 scales
// with zeros and subnormals, per-tensor scales, quantized, raw and -128
// activations, with the sign stream ending at an inaccessible page. A build
// that fell back to the scalar path (BITCOS_NEON_TQ2_SIMD not the one its
// -march asks for) fails. It skips without the cross compiler or qemu.
func TestNeonUnderQemu(t *testing.T) {
	for _, tool := range []string{neonCC, neonQemu} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found (apt-get install gcc-aarch64-linux-gnu qemu-user): the NEON kernel is not run", tool)
		}
	}
	if _, err := os.Stat(filepath.Join(neonSysroot, "lib", "ld-linux-aarch64.so.1")); err != nil {
		t.Skipf("no aarch64 sysroot at %s (libc6-arm64-cross): the NEON kernel is not run", neonSysroot)
	}
	builds := []struct {
		march string
		simd  int // BITCOS_NEON_TQ2_SIMD expected
	}{{"armv8.2-a+dotprod", 2}, {"armv8-a", 1}}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(91, 92))
	cases := neonCases(t, rng)
	for _, b := range builds {
		t.Run(b.march, func(t *testing.T) {
			bin := filepath.Join(dir, "harness-"+b.march)
			// -std=gnu11 as ggml builds it (FMA contraction on: the
			// kernel's float steps must not depend on it)
			cmd := exec.Command(neonCC, "-std=gnu11", "-O2", "-march="+b.march, "-Wall", "-Werror",
				"-o", bin, filepath.Join("testdata", "neon", "harness.c"), filepath.Join("c", "bitcos_codes.c"),
				filepath.Join("c", "bitcos_layout.c"), filepath.Join("c", "bitcos_neon_tq2_0.c"), "-lm")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
			}
			outputs := 0
			for _, c := range cases {
				got := runNeonHarness(t, bin, b.simd, c)
				for r := range c.m.rows {
					for j := range 4 {
						want := VecDotQ8KTQ2ARMOrder(c.m.rowBitmap(r), c.m.rowSigns(r), c.m.rowScales(r), c.m.d32, c.y[j])
						for p, path := range []string{"neon_tq2", "codes", "codes x4", "converted blocks"} {
							g := got[r*16+4*p+j]
							if math.Float32bits(g) != math.Float32bits(want) {
								t.Fatalf("%s %s row %d column %d: NEON %v (%#08x), Go reference %v (%#08x)",
									c.name, path, r, j, g, math.Float32bits(g), want, math.Float32bits(want))
							}
							outputs++
						}
					}
				}
			}
			t.Logf("%d outputs bit-identical to VecDotQ8KTQ2ARMOrder (BITCOS_NEON_TQ2_SIMD %d, under qemu-aarch64)", outputs, b.simd)
		})
	}
}

type neonCase struct {
	name string
	m    *testRows
	y    [4][]BlockQ8K
}

func neonCases(t *testing.T, rng *rand.Rand) []neonCase {
	zs := []float64{0, 0.1, 0.2, 0.3, 0.37, 0.42, 0.47, 0.52, 0.6, 1}
	var cs []neonCase
	for _, k := range []int{256, 512, 2560, 6912, 32768} {
		rows := 40
		if k == 32768 {
			rows = 10
		}
		for _, perTensor := range []bool{false, true} {
			c := neonCase{name: fmt.Sprintf("k=%d perTensor=%v", k, perTensor), m: makeRows(t, rng, k, rows, zs, perTensor)}
			c.y[0] = randomActivations(rng, k, false)
			c.y[1] = randomActivations(rng, k, true)
			c.y[2] = randomActivations(rng, k, false)
			c.y[3] = minus128(rng, randomActivations(rng, k, true))
			cs = append(cs, c)
		}
	}
	return cs
}

// minus128 sets a few activations to -128 (beyond quantize_row_q8_K's
// range: the NEON kernel multiplies exactly, as ggml's does) and recomputes
// the bsums.
func minus128(rng *rand.Rand, y []BlockQ8K) []BlockQ8K {
	for b := range y {
		for range 8 {
			y[b].Qs[rng.IntN(QK_K)] = -128
		}
		for g := range y[b].Bsums {
			s := 0
			for _, q := range y[b].Qs[16*g : 16*g+16] {
				s += int(q)
			}
			y[b].Bsums[g] = int16(s)
		}
	}
	return y
}

// runNeonHarness feeds case c to the harness under qemu and returns its
// 16 floats per row, after checking the build's SIMD level.
func runNeonHarness(t *testing.T, bin string, simd int, c neonCase) []float32 {
	t.Helper()
	var in bytes.Buffer
	w := func(v any) {
		if err := binary.Write(&in, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	m := c.m
	perTensor := int32(0)
	if m.d16 == nil {
		perTensor = 1
	}
	w([4]int32{int32(m.k), int32(m.rows), 4, perTensor})
	w(m.d32)
	w(uint32(len(m.signs)))
	w(m.bitmap)
	w(m.signs)
	w(m.off)
	if m.d16 != nil {
		w(m.d16)
	}
	for j := range 4 {
		w(c.y[j])
	}
	cmd := exec.Command(neonQemu, "-L", neonSysroot, bin)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s under qemu, %s: %v\n%s", bin, c.name, err, stderr.Bytes())
	}
	head := fmt.Sprintf("simd %d\n", simd)
	if !bytes.HasPrefix(out, []byte(head)) {
		line, _, _ := bytes.Cut(out, []byte("\n"))
		t.Fatalf("%s: the harness says %q, want %q: the kernel did not compile its NEON path", bin, line, head[:len(head)-1])
	}
	out = out[len(head):]
	got := make([]float32, m.rows*16)
	if len(out) != 4*len(got) {
		t.Fatalf("%s, %s: %d bytes of output, want %d", bin, c.name, len(out), 4*len(got))
	}
	if err := binary.Read(bytes.NewReader(out), binary.LittleEndian, got); err != nil {
		t.Fatal(err)
	}
	return got
}
