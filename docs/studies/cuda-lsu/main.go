// Command cuda-lsu models the memory side of the CUDA mat-vec variants of
// patch 0016 per warp step (32 chunks of 32 weights, one chunk per lane): how
// many L1 wavefronts the global loads cost (distinct 128-byte lines per warp
// instruction) and how many shared-memory wavefronts the shared loads cost
// (bank conflicts, per quarter warp for 16-byte loads), on BITCOS rows like a
// ternary model's (zero density 0.30-0.52, random signs). With each variant's
// SASS instruction count (kernels/cuda/microbench/sass.sh) it sets the issue
// cycles (instructions / 4 schedulers) beside the load-unit cycles (one
// wavefront per clock), per step and SM, and compares both with the H200's
// measured time per step. A study, not part of the product: REPORT.md has what
// it found.
//
//	go run ./docs/studies/cuda-lsu [-rows 256] [-seed 1]
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"text/tabwriter"
)

const (
	lanes   = 32
	chunkW  = 32  // weights per chunk
	q81     = 36  // bytes of a block_q8_1
	line    = 128 // bytes per L1 line
	banks   = 32
	tableSz = 256 // nibble table entries
)

// row: one BITCOS row, its presence words and its compacted signs (bit i of
// the stream: the i-th present weight's sign), starting at byte start of the
// sign tensor.
type row struct {
	words []uint32
	signs []byte
	start int
}

func makeRows(rng *rand.Rand, n, k int) []row {
	rows := make([]row, n)
	start := 0
	for r := range rows {
		z := 0.30 + 0.22*rng.Float64()
		w := make([]uint32, k/chunkW)
		nnz := 0
		for j := 0; j < k; j++ {
			if rng.Float64() >= z {
				w[j/chunkW] |= 1 << (j % chunkW)
				nnz++
			}
		}
		s := make([]byte, (nnz+7)/8+8)
		rng.Read(s)
		rows[r] = row{w, s, start}
		start += (nnz + 7) / 8
	}
	return rows
}

// bit i of the row's sign stream
func (r *row) sign(i int) uint32 { return uint32(r.signs[i/8]>>(i%8)) & 1 }

// cursors: the sign cursor of each chunk of the row (signs before it)
func (r *row) cursors() []int {
	c := make([]int, len(r.words)+1)
	for i, w := range r.words {
		c[i+1] = c[i] + popc(w)
	}
	return c
}

func popc(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// tableIdx: the 8 nibble-table entries chunk c of the row reads
func (r *row) tableIdx(c, cur int) [8]int {
	var idx [8]int
	m := r.words[c]
	for g := 0; g < 8; g++ {
		nib := (m >> (4 * g)) & 15
		s := 0
		for b := 0; b < 4; b++ {
			s |= int(r.sign(cur+b)) << b
		}
		idx[g] = int(nib) | s<<4
		cur += popc(nib)
	}
	return idx
}

// lines: distinct 128-byte lines among byte addresses (a global load's L1
// wavefronts, as counted here)
func lines(addrs []int) int {
	seen := map[int]bool{}
	for _, a := range addrs {
		seen[a/line] = true
	}
	return len(seen)
}

// conflicts: the most distinct items any of nb bank groups is asked for
// (item i goes to group i % nb; the same item broadcasts)
func conflicts(items []int, nb int) int {
	per := map[int]map[int]bool{}
	for _, it := range items {
		g := it % nb
		if per[g] == nil {
			per[g] = map[int]bool{}
		}
		per[g][it] = true
	}
	most := 1
	for _, s := range per {
		most = max(most, len(s))
	}
	return most
}

// shared4: wavefronts of a 4-byte shared load of these words
func shared4(words []int) int { return conflicts(words, banks) }

// shared16: wavefronts of a 16-byte shared load of these 16-byte slots: each
// quarter warp (8 lanes) on its own, over 8 groups of 4 banks
func shared16(slots []int) int {
	n := 0
	for q := 0; q < len(slots); q += 8 {
		n += conflicts(slots[q:min(q+8, len(slots))], banks/4)
	}
	return n
}

// tableMode: where the nibble table lives
type tableMode int

const (
	tableGlobal  tableMode = iota // read through L1 (1 KiB, 8 lines)
	tableShared                   // one copy in shared memory
	tablePerLane                  // a copy per lane: entry e of lane l at word 32e + l
)

// cost of one warp step: L1 lines and sectors of its global loads (summed
// over its instructions), shared-memory wavefronts
type cost struct {
	l1, sectors, shared float64
}

// sectors: distinct 32-byte sectors among byte addresses
func sectors(addrs []int) int {
	seen := map[int]bool{}
	for _, a := range addrs {
		seen[a/32] = true
	}
	return len(seen)
}

// global: a global load instruction's lines and sectors into k
func (k *cost) global(addrs []int) {
	k.l1 += float64(lines(addrs))
	k.sectors += float64(sectors(addrs))
}

// stepCost: the loads of one warp step of row r from chunk c0, lane l taking
// chunk c0 + l (the one-warp mapping; the paired geometry is the same per
// step), y in global memory (q8_1 blocks) or staged, the table where mode says.
func stepCost(r *row, cur []int, c0 int, staged bool, mode tableMode) cost {
	var k cost
	var bm, s0, s1, sc []int
	var yq [9][]int
	var ys [2][]int
	var yd []int
	var tab [8][]int
	for l := 0; l < lanes; l++ {
		c := c0 + l
		if c >= len(r.words) {
			continue
		}
		bm = append(bm, 4*c)
		w := (r.start*8 + cur[c]) / 32 // the aligned sign word of the cursor
		s0 = append(s0, 4*w)
		s1 = append(s1, 4*w+4)
		sc = append(sc, 2*(c>>3))
		if staged {
			h0 := 2*c + ((c >> 2) & 1)
			ys[0] = append(ys[0], h0)
			ys[1] = append(ys[1], h0^1)
			yd = append(yd, c)
		} else {
			for g := 0; g < 9; g++ {
				yq[g] = append(yq[g], q81*c+4*g)
			}
		}
		for g, e := range r.tableIdx(c, cur[c]) {
			n := max(int(mode), 1)
			tab[g] = append(tab[g], n*e+l%n)
		}
	}
	for _, a := range [][]int{bm, s0, s1, sc} {
		k.global(a)
	}
	if staged {
		k.shared += float64(shared16(ys[0]) + shared16(ys[1]) + shared4(yd))
	} else {
		for g := range yq {
			k.global(yq[g])
		}
	}
	for g := range tab {
		if mode == tableGlobal {
			addrs := make([]int, len(tab[g]))
			for i, e := range tab[g] {
				addrs[i] = 4 * e
			}
			k.global(addrs)
		} else {
			k.shared += float64(shared4(tab[g]))
		}
	}
	return k
}

// segCost: a step of the segmented geometry (n = 256 chunks, lane l a run of 8
// consecutive chunks, one at a time): per run position j, the warp's loads
func segCost(r *row, cur []int, s0 int) cost {
	var k cost
	n := min(256, len(r.words)-s0)
	for j := 0; j < 8; j++ {
		var bm, sw, sc []int
		var yq [9][]int
		var tab [8][]int
		for l := 0; l < lanes; l++ {
			c0, cnt := l*n/lanes, (l+1)*n/lanes-l*n/lanes
			if j >= cnt {
				continue
			}
			c := s0 + c0 + j
			bm = append(bm, 4*c)
			w := (r.start*8 + cur[c]) / 32
			sw = append(sw, 4*w)
			sc = append(sc, 2*(c>>3))
			for g := 0; g < 9; g++ {
				yq[g] = append(yq[g], q81*c+4*g)
			}
			for g, e := range r.tableIdx(c, cur[c]) {
				tab[g] = append(tab[g], e)
			}
		}
		if len(bm) == 0 {
			continue
		}
		for _, a := range [][]int{bm, sw, sw, sc} {
			k.global(a)
		}
		for g := range yq {
			k.global(yq[g])
		}
		for g := range tab {
			k.shared += float64(shared4(tab[g]))
		}
	}
	return k
}

// variant: a mat-vec variant as the model sees it
type variant struct {
	name    string
	instr   int // SASS instructions per 32 chunks (nvcc 11.8, sm_90; sass.sh)
	staged  bool
	mode    tableMode
	seg     bool
	stageRB int // rows per block sharing one staging (staged variants)
}

// model: a variant's mean cost per warp step over rows
func model(rows []row, v variant) cost {
	var sum cost
	steps := 0
	for i := range rows {
		r := &rows[i]
		cur := r.cursors()
		nchunks := len(r.words)
		if v.seg {
			for s0 := 0; s0 < nchunks; s0 += 256 {
				k := segCost(r, cur, s0)
				sum.l1, sum.sectors, sum.shared = sum.l1+k.l1, sum.sectors+k.sectors, sum.shared+k.shared
			}
			steps += (nchunks + lanes - 1) / lanes
			continue
		}
		for c0 := 0; c0 < nchunks; c0 += lanes {
			k := stepCost(r, cur, c0, v.staged, v.mode)
			sum.l1, sum.sectors, sum.shared = sum.l1+k.l1, sum.sectors+k.sectors, sum.shared+k.shared
			steps++
		}
	}
	m := cost{sum.l1 / float64(steps), sum.sectors / float64(steps), sum.shared / float64(steps)}
	if v.staged {
		// the block's staging: a thread per chunk reads its q8_1 block (9
		// scattered 4-byte loads, as w1g's) and writes 2 x 16 + 4 bytes,
		// once per rows-per-block rows
		var st cost
		var yq [9][]int
		var s16 [2][]int
		for c := 0; c < lanes; c++ {
			for g := 0; g < 9; g++ {
				yq[g] = append(yq[g], q81*c+4*g)
			}
			h0 := 2*c + ((c >> 2) & 1)
			s16[0] = append(s16[0], h0)
			s16[1] = append(s16[1], h0^1)
		}
		for g := range yq {
			st.global(yq[g])
		}
		st.shared += float64(shared16(s16[0]) + shared16(s16[1]) + 1)
		rb := float64(v.stageRB)
		m = cost{m.l1 + st.l1/rb, m.sectors + st.sectors/rb, m.shared + st.shared/rb}
		if v.mode > 0 {
			// the block's table fill: 1 KiB per copy in 16-byte stores, 8
			// wavefronts a copy, over the block's warp steps
			steps := rb * float64((len(rows[0].words)+lanes-1)/lanes)
			m.shared += 8 * float64(v.mode) / steps
		}
	}
	return m
}

// the H200's measured time of a one-column mat-vec (kernels/cuda/microbench,
// session 14, docs/BENCHMARKS.md), in SM clocks per warp step: us x 1.98 GHz x
// 132 SMs / (rows x steps per row)
type meas struct {
	shape   string
	rows, k int
	us      map[string]float64
}

func (m meas) clk(v string) float64 {
	steps := float64(m.rows) * float64((m.k/chunkW+lanes-1)/lanes)
	return m.us[v] * 1.98e3 * 132 / steps
}

var measured = []meas{
	{"2B q/o", 2560, 2560, map[string]float64{"w1g": 3.95, "w1s": 4.20, "s1s": 4.87}},
	{"2B gate/up", 6912, 2560, map[string]float64{"w1g": 7.63, "w1s": 7.87, "s1s": 9.02}},
	{"2B down", 2560, 6912, map[string]float64{"w1g": 6.75, "w1s": 7.09, "s1s": 9.57}},
	{"8B up", 14336, 4096, map[string]float64{"w1g": 16.17, "w1s": 16.37, "s1s": 25.13}},
	{"8B down", 4096, 14336, map[string]float64{"w1g": 16.51, "w1s": 17.00, "s1s": 28.94}},
	{"70B up", 28672, 8192, map[string]float64{"w1g": 56.01, "w1s": 54.75, "s1s": 114.04}},
	{"70B down", 8192, 28672, map[string]float64{"w1g": 60.52, "w1s": 59.43, "s1s": 113.43}},
}

var old = []variant{ // the code the H200 measured (session 14)
	{"w1g", 151, false, tableGlobal, false, 0},
	{"w1s", 149, false, 1, false, 0},
	{"s1s", 123, false, 1, true, 0},
}

var current = []variant{
	{"w1g", 154, false, tableGlobal, false, 0},
	{"w1s", 139, false, 1, false, 0},
	{"p4g", 136, false, tableGlobal, false, 0},
	{"y4g", 130, true, tableGlobal, false, 4},
	{"y4s", 112, true, 1, false, 4},
	{"y8s", 112, true, 1, false, 8},
	{"y8h", 120, true, 16, false, 8},
	{"y4r", 120, true, 32, false, 4},
	{"y8r", 120, true, 32, false, 8},
}

// fit: least squares of y = x . w over the points (no intercept), by the
// normal equations and Gaussian elimination
func fit(x [][]float64, y []float64) []float64 {
	n := len(x[0])
	m := make([][]float64, n)
	v := make([]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for p := range y {
			for j := range m[i] {
				m[i][j] += x[p][i] * x[p][j]
			}
			v[i] += x[p][i] * y[p]
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			f := m[j][i] / m[i][i]
			for k := range m[j] {
				m[j][k] -= f * m[i][k]
			}
			v[j] -= f * v[i]
		}
	}
	w := make([]float64, n)
	for i := n - 1; i >= 0; i-- {
		w[i] = v[i]
		for k := i + 1; k < n; k++ {
			w[i] -= m[i][k] * w[k]
		}
		w[i] /= m[i][i]
	}
	return w
}

// loadClk: the fitted load-unit clocks of a step
func loadClk(w []float64, c cost) float64 { return w[0]*c.l1 + w[1]*c.sectors + w[2]*c.shared }

func main() {
	seed := flag.Int64("seed", 1, "random seed")
	nrows := flag.Int("rows", 256, "rows modelled per shape")
	flag.Parse()
	if *nrows < 1 {
		fmt.Fprintln(os.Stderr, "cuda-lsu: -rows must be positive")
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(*seed))

	// 1. the code the H200 measured, at its shapes of 2048 rows or more per
	// SM-wave (the 2B shapes are too small to fill the GPU for long): fit the
	// load unit's clocks per L1 sector and per shared wavefront to the times
	var xs [][]float64
	var ys []float64
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tvariant\tinstr/4\tL1 lines\tL1 sectors\tshared wavefr.\tmeasured clk\t")
	models := map[int][]cost{}
	for _, m := range measured {
		rows := makeRows(rng, *nrows, m.k)
		for _, v := range old {
			c := model(rows, v)
			models[m.k] = append(models[m.k], c)
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", m.shape, v.name, float64(v.instr)/4, c.l1, c.sectors, c.shared, m.clk(v.name))
			if m.rows*m.k >= 14336*4096 {
				xs = append(xs, []float64{c.l1, c.sectors, c.shared})
				ys = append(ys, m.clk(v.name))
			}
		}
	}
	tw.Flush()
	w := fit(xs, ys)
	fmt.Printf("\nfit over the 8B and 70B shapes: clk per warp step = %.3f x L1 lines + %.3f x L1 sectors + %.3f x shared wavefronts\n", w[0], w[1], w[2])
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shape\tvariant\tmodel clk\tmeasured clk\tmodel/measured\t")
	for _, m := range measured {
		if m.rows*m.k < 14336*4096 {
			continue
		}
		for j, v := range old {
			c := models[m.k][j]
			p := loadClk(w, c)
			fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.1f\t%.2f\t\n", m.shape, v.name, p, m.clk(v.name), p/m.clk(v.name))
		}
	}
	tw.Flush()

	// 2. the variants now, at the 8B FFN's row length: the fitted load clocks
	// beside the issue clocks; the larger bounds the step
	rows := makeRows(rng, *nrows, 4096)
	fmt.Printf("\nk = 4096, per warp step and SM (loads: the fit above; issue: instructions / 4):\n")
	tw = tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\tinstr\tissue clk\tL1 lines\tL1 sectors\tshared wavefr.\tload clk\tbound\tvs w1g\t")
	var base float64
	for _, v := range current {
		c := model(rows, v)
		issue := float64(v.instr) / 4
		load := loadClk(w, c)
		t, bound := load, "loads"
		if issue > load {
			t, bound = issue, "issue"
		}
		if base == 0 {
			base = t
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%.2fx\t\n", v.name, v.instr, issue, c.l1, c.sectors, c.shared, load, bound, base/t)
	}
	tw.Flush()
}
