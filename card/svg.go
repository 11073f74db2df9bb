package card

import (
	"fmt"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/repack"
)

// zeroDensitySVG draws every ternary tensor's zero density as a bar, in file
// order, with the 0.375 line where BITCOS starts beating five-trits-per-byte
// (after the paper's Fig. 1).
func zeroDensitySVG(st *repack.FileStats) string {
	ts := append([]repack.TensorStats(nil), st.Tensors...)
	const W, H, left, bottom, top = 900, 360, 60, 40, 30
	n := len(ts)
	if n == 0 {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`
	}
	plotW, plotH := float64(W-left-20), float64(H-bottom-top)
	y := func(z float64) float64 { return float64(top) + plotH*(1-z/0.6) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="14">Zero density per ternary tensor (%d tensors, mean z = %.4f)</text>`+"\n", left, n, st.Total.Z)
	for _, z := range []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6} {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`, left, W-20, y(z), y(z))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-6, y(z)+4, z)
	}
	bw := plotW / float64(n)
	colors := map[string]string{"attn": "#4878cf", "ffn": "#d65f5f"}
	for i, t := range ts {
		c := "#6acc65"
		for k, v := range colors {
			if strings.Contains(t.Name, k) {
				c = v
			}
		}
		x := float64(left) + float64(i)*bw
		fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%s z=%.4f</title></rect>`+"\n",
			x+bw*0.1, y(t.Z), bw*0.8, y(0)-y(t.Z), c, t.Name, t.Z)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="6,4"/>`, left, W-20, y(0.375), y(0.375))
	fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="210" height="18" fill="white" fill-opacity="0.85"/>`, W-234, y(0.375)-19)
	fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">z = 0.375: BITCOS = 1.625 bits</text>`+"\n", W-28, y(0.375)-5)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">ternary tensors in file order (blue: attention, red: FFN)</text>`+"\n", left+int(plotW/2), H-12)
	fmt.Fprintf(&b, `<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">zero density z</text>`+"\n", top+int(plotH/2), top+int(plotH/2))
	b.WriteString("</svg>\n")
	return b.String()
}
