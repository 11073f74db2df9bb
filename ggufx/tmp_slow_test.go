package ggufx

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"
)

func TestTmpSlow(t *testing.T) {
	seeds := [][]byte{writeFile(t, smallHeader(), nil), writeFile(t, everyValueHeader(t), nil)}
	r := rand.New(rand.NewPCG(1, 2))
	for it := 0; it < 20000; it++ {
		d := bytes.Clone(seeds[it%2])
		for k := 0; k < 1+r.IntN(4); k++ {
			i := r.IntN(len(d))
			switch r.IntN(3) {
			case 0:
				d[i] = byte(r.Uint32())
			case 1:
				d[i] = 0xff
			case 2:
				d[i] ^= 1 << r.IntN(8)
			}
		}
		start := time.Now()
		g, err := Parse(bytes.NewReader(d), int64(len(d)), "x")
		t1 := time.Since(start)
		if err == nil {
			g.Canonical()
			l, err := plan(HeaderFromFile(g))
			if err == nil {
				hdr := l.encode()
				size := int64(l.dataOffset + l.dataSize)
				Parse(virtualFile{hdr, size}, size, "r")
			}
		}
		if el := time.Since(start); el > 200*time.Millisecond {
			t.Fatalf("iteration %d slow: parse %v total %v err %v", it, t1, el, err)
		}
	}
}
