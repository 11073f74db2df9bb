package llamabench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fake answers as llama-bench -o json would (-o jsonl with jsonl set: both
// are read), every entry at a fixed speed
// per test (speed[label] tokens/s at one thread, twice that at two), each
// round r slower by r%2 * 10% for every entry alike (a noisy machine), and
// records what it was asked.
type fake struct {
	speed map[string]float64
	calls []string
	args  [][]string
	fail  string // a label whose run fails
	round map[string]int
	jsonl bool // answer one object per line
}

func (f *fake) run(e Entry, args []string) ([]byte, error) {
	f.calls = append(f.calls, e.Label)
	f.args = append(f.args, args)
	if e.Label == f.fail {
		return nil, fmt.Errorf("exit status 1")
	}
	r := f.round[e.Label]
	f.round[e.Label]++
	var xs []line
	get := func(flag string) []string {
		i := slices.Index(args, flag)
		return strings.Split(args[i+1], ",")
	}
	for _, t := range get("-t") {
		th, _ := strconv.Atoi(t)
		for _, p := range get("-p") {
			for _, n := range get("-n") {
				np, _ := strconv.Atoi(p)
				ng, _ := strconv.Atoi(n)
				for _, x := range []line{{Threads: th, Prompt: np}, {Threads: th, Gen: ng}} {
					if x.Prompt == 0 && x.Gen == 0 {
						continue
					}
					x.CPU = "Test CPU 9000"
					x.AvgTS = f.speed[e.Label] * float64(th) * (1 - 0.1*float64(r%2))
					if x.Prompt > 0 {
						x.AvgTS *= 10
					}
					xs = append(xs, x)
				}
			}
		}
	}
	if !f.jsonl {
		return json.MarshalIndent(xs, "", "    ")
	}
	var b bytes.Buffer
	for _, x := range xs {
		json.NewEncoder(&b).Encode(x)
	}
	return b.Bytes(), nil
}

// TestMeasure: llama-bench's -o json (upstream and ik_llama.cpp) and JSONL
// (-o jsonl, upstream only) give the same result.
func TestMeasure(t *testing.T) {
	for _, jsonl := range []bool{false, true} {
		t.Run(fmt.Sprintf("jsonl=%v", jsonl), func(t *testing.T) { testMeasure(t, jsonl) })
	}
}

func testMeasure(t *testing.T, jsonl bool) {
	f := &fake{speed: map[string]float64{"tq2_0": 10, "bitcos": 15, "iq2_bn": 12, "i2_s": 6}, round: map[string]int{}, jsonl: jsonl}
	o := Options{
		Entries: []Entry{{Label: "tq2_0", Model: "a.gguf"}, {Label: "bitcos", Model: "b.gguf", Env: []string{"X=1"}},
			{Label: "iq2_bn", Model: "c.gguf", Peer: true}, {Label: "i2_s", Model: "d.gguf", Peer: true}},
		Threads: []int{1, 2}, Tests: []Test{{Gen: 64}, {Prompt: 128}, {Prompt: 512}}, Rounds: 3, Reps: 2, Run: f.run,
	}
	r, err := Measure(o)
	if err != nil {
		t.Fatal(err)
	}
	// rotated: round r starts with entry r
	want := []string{"tq2_0", "bitcos", "iq2_bn", "i2_s", "bitcos", "iq2_bn", "i2_s", "tq2_0", "iq2_bn", "i2_s", "tq2_0", "bitcos"}
	if !slices.Equal(f.calls, want) || !slices.Equal(r.Order, want) {
		t.Errorf("order %v, want %v", f.calls, want)
	}
	if got := strings.Join(f.args[0], " "); got != "-m a.gguf -t 1,2 -p 128,512 -n 64 -r 2 -o json" {
		t.Errorf("args %q", got)
	}
	if r.CPU != "Test CPU 9000" || r.Base != "tq2_0" || len(r.Rows) != 6 {
		t.Fatalf("cpu %q, base %q, %d rows", r.CPU, r.Base, len(r.Rows))
	}
	for _, row := range r.Rows {
		for _, c := range row.Cells {
			// the round's slowdown hits every entry alike: the ratios are exact
			wantBase := f.speed[c.Label] / f.speed["tq2_0"]
			wantPeer := f.speed[c.Label] / f.speed["iq2_bn"]
			if math.Abs(c.VsBase.Median-wantBase) > 1e-12 || math.Abs(c.VsBase.Max-c.VsBase.Min) > 1e-12 ||
				math.Abs(c.VsBestPeer.Median-wantPeer) > 1e-12 || len(c.TS) != 3 {
				t.Errorf("%d %s %s: %+v, want x base %v, x best peer %v", row.Threads, row.Test, c.Label, c, wantBase, wantPeer)
			}
		}
	}
	var b bytes.Buffer
	r.Print(&b)
	for _, s := range []string{"CPU: Test CPU 9000", "1.50x (1.50-1.50)", "1.25x (1.25-1.25)", "bitcos (file): b.gguf X=1", "iq2_bn (peer)", "pp512"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("the table lacks %q:\n%s", s, b.String())
		}
	}
}

func TestMeasureErrors(t *testing.T) {
	ok := func() Options {
		f := &fake{speed: map[string]float64{"a": 1, "b": 2}, round: map[string]int{}}
		return Options{Entries: []Entry{{Label: "a", Bench: "/x/llama-bench"}, {Label: "b"}}, Threads: []int{1},
			Tests: []Test{{Gen: 16}}, Rounds: 1, Reps: 1, Run: f.run}
	}
	for _, tc := range []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"no entries", func(o *Options) { o.Entries = nil }, "required"},
		{"twice", func(o *Options) { o.Entries[1].Label = "a" }, "given twice"},
		{"base unknown", func(o *Options) { o.Base = "c" }, "none of the entries"},
		{"run fails", func(o *Options) { o.Run = (&fake{fail: "a"}).run }, "a: exit status 1"},
		{"not json", func(o *Options) { o.Run = func(Entry, []string) ([]byte, error) { return []byte("| model |"), nil } }, "not JSON"},
		{"broken json array", func(o *Options) {
			o.Run = func(Entry, []string) ([]byte, error) { return []byte("[{\"n_threads\": 1,"), nil }
		}, "not JSON (-o json)"},
		{"empty", func(o *Options) { o.Run = func(Entry, []string) ([]byte, error) { return nil, nil } }, "no results"},
		{"missing test", func(o *Options) {
			o.Run = func(Entry, []string) ([]byte, error) { return []byte(`{"n_threads":1,"n_gen":32,"avg_ts":3}`), nil }
		}, "no tg16 at 1 threads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := ok()
			tc.mod(&o)
			if _, err := Measure(o); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParseTest(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Test
		ok   bool
	}{{"tg64", Test{Gen: 64}, true}, {"pp512", Test{Prompt: 512}, true}, {"pp0", Test{}, false}, {"xx8", Test{}, false}, {"tg", Test{}, false}, {"", Test{}, false}} {
		got, err := ParseTest(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseTest(%q) = %v, %v", tc.in, got, err)
		}
	}
}
