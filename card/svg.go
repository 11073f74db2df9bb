package card

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gguf-bitcos/gguf-bitcos/internal/units"
	"github.com/gguf-bitcos/gguf-bitcos/stats"
)

// The zero-density chart is a grid: one column per layer, one row per kind
// of projection (attn_q, ffn_up, ...), each cell coloured by the tensor's z
// on a scale that turns at z = 0.375, where BITCOS (2 - z) meets five trits
// per byte (1.625 bits), and labelled with z itself. A 2B model's 210
// tensors stay readable (30 x 7 cells with their values), which bars in file
// order were not. Tensors outside the layers (token_embd, output) get a row
// of their own, labelled by name.

var layerTensor = regexp.MustCompile(`^blk\.(\d+)\.(.+?)(\.weight)?$`)

// cell is one tensor in the grid.
type cell struct {
	layer int // -1: outside the layers
	kind  string
	z     float64
}

func gridOf(ts []stats.TensorStats) (cells []cell, layers int, kinds []string) {
	for _, t := range ts {
		c := cell{layer: -1, kind: t.Name, z: t.Z}
		if m := layerTensor.FindStringSubmatch(t.Name); m != nil {
			c.layer, _ = strconv.Atoi(m[1])
			c.kind = m[2]
			layers = max(layers, c.layer+1)
			if !slices.Contains(kinds, c.kind) {
				kinds = append(kinds, c.kind)
			}
		}
		cells = append(cells, c)
	}
	return cells, layers, kinds
}

// zColor maps z to a colour: red below 0.375 (BITCOS above 1.625 bits),
// white at it, blue above, saturating at 0.25 and 0.55.
func zColor(z float64) string {
	t := math.Max(-1, math.Min(1, (z-0.375)/0.15))
	lerp := func(a, b int) int { return int(math.Round(float64(a) + (float64(b)-float64(a))*math.Abs(t))) }
	if t < 0 {
		return fmt.Sprintf("#%02x%02x%02x", lerp(255, 214), lerp(255, 95), lerp(255, 95))
	}
	return fmt.Sprintf("#%02x%02x%02x", lerp(255, 72), lerp(255, 120), lerp(255, 207))
}

// zeroDensitySVG draws the grid.
func zeroDensitySVG(st *stats.FileStats) string {
	cells, layers, kinds := gridOf(st.Tensors)
	var others []cell
	for _, c := range cells {
		if c.layer < 0 {
			others = append(others, c)
		}
	}
	const left, top, cellH, right = 110, 50, 22, 20
	cellW := 40.0
	if layers > 0 {
		cellW = math.Max(26, math.Min(60, 800/float64(layers)))
	}
	title := fmt.Sprintf("Zero density z per ternary tensor: %s, mean z = %.4f", units.Count(len(cells), "tensor"), st.Total.Z)
	legend := "red: z below 0.375 (BITCOS above 1.625 bits/weight), white: 0.375, blue: above; BITCOS takes 2 − z bits"
	// Wide enough for the grid and for the title and legend: a model with
	// few layers has a narrow grid.
	W := max(left+int(cellW*float64(max(layers, 1)))+right, 20+textWidth(title, 15), 20+textWidth(legend, 11))
	gridH := cellH * len(kinds)
	otherY := top + gridH + 40
	H := otherY + cellH*len(others) + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15">%s</text>`+"\n", title)
	fmt.Fprintf(&b, `<text x="10" y="38" font-size="11">%s</text>`+"\n", legend)
	for l := 0; l < layers; l++ {
		if layers <= 40 || l%5 == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10">%d</text>`, float64(left)+(float64(l)+0.5)*cellW, top+gridH+14, l)
		}
	}
	if layers > 0 {
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">layer</text>`+"\n", float64(left)+cellW*float64(layers)/2, top+gridH+28)
	}
	for r, k := range kinds {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, top+r*cellH+15, k)
	}
	for _, c := range cells {
		if c.layer < 0 {
			continue
		}
		r := slices.Index(kinds, c.kind)
		x, y := float64(left)+float64(c.layer)*cellW, top+r*cellH
		drawCell(&b, x, float64(y), cellW, cellH, c, fmt.Sprintf("blk.%d.%s", c.layer, c.kind))
	}
	for i, c := range others {
		y := otherY + i*cellH
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, y+15, c.kind)
		drawCell(&b, float64(left), float64(y), math.Max(cellW, 60), cellH, c, c.kind)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// textWidth is a generous estimate of the width of text in a sans-serif
// font of size px (0.6 em a character; digits and most letters are less).
func textWidth(text string, px float64) int {
	return int(math.Ceil(0.6 * px * float64(utf8.RuneCountInString(text))))
}

func drawCell(b *strings.Builder, x, y, w float64, h int, c cell, name string) {
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" stroke="white"><title>%s z=%.4f</title></rect>`,
		x, y, w, h, zColor(c.z), name, c.z)
	label := strings.TrimPrefix(fmt.Sprintf("%.2f", c.z), "0")
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="10">%s</text>`+"\n", x+w/2, y+15, label)
}
