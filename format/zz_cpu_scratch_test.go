package format

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var zzRows = 2048

func TestZZCPUSmall(t *testing.T) { zzRows = 64; defer func() { zzRows = 2048 }(); TestZZCPU(t) }

func TestZZCPU(t *testing.T) {
	k, rows := 2560, zzRows
	rng := rand.New(rand.NewPCG(1, 1))
	v := stockCodes(rng, k*rows, 0.42)
	p0 := stockPlanesOf(v, k, rows)
	for _, c := range []Codec{TQ2_0, TQ1_0, Q2_0, I2S} {
		p := &Planes{}
		p.Reset(k, rows)
		copy(p.Present, p0.Present)
		copy(p.Neg, p0.Neg)
		s := &Scales{Group: c.ScaleGroup()}
		if g := c.ScaleGroup(); g > 0 {
			s.F16 = make([]uint16, k/g*rows)
		}
		buf := make([]byte, c.TensorBytes(k, rows))
		c.Encode(p, s, buf)
		for _, dec := range []bool{true, false} {
			best := time.Hour
			for range 5 {
				t0 := cpuNow()
				for range 20 * 2048 / zzRows {
					if dec {
						c.Decode(buf, k, rows, p, s)
					} else {
						c.Encode(p, s, buf)
					}
				}
				if d := (cpuNow() - t0) / time.Duration(20*2048/zzRows); d < best {
					best = d
				}
			}
			t.Logf("%-6s decode=%v  %7.0f MB/s (cpu)", c.Name(), dec, float64(len(buf))/best.Seconds()/1e6)
		}
	}
}
