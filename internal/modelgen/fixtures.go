package modelgen

import "github.com/gguf-bitcos/gguf-bitcos/ggufx"

//go:generate go run ../../cmd/gguf-bitcos gen fixtures --force ../../testdata

// Fixture is one committed test model.
type Fixture struct {
	File string
	Spec Spec
}

// Fixtures are the small models committed under testdata/ (about 300 to
// 460 KiB each), one per source type, with odd shapes and hostile details.
func Fixtures() []Fixture {
	tiny := func(t ggufx.GGMLType, seed uint64) Spec {
		return Spec{Arch: "bitnet", NEmbd: 256, NFF: 512, NLayer: 1, NHead: 4, NHeadKV: 2, NVocab: 300,
			Type: t, HeadType: ggufx.TypeF16, Seed: seed}
	}
	tq2 := tiny(ggufx.TypeTQ2_0, 11)
	tq2.OddTensor = true
	tq1 := tiny(ggufx.TypeTQ1_0, 12)
	tq1.Experts = 2
	q2 := tiny(ggufx.TypeQ2_0, 13)
	q2.OddTensor, q2.NonTernary = true, true
	i2s := tiny(ggufx.TypeI2_S, 14)
	i2s.Arch = "bitnet-b1.58"
	i2s.ScaleTensors = true
	return []Fixture{
		{"tiny-tq2_0.gguf", tq2},
		{"tiny-tq1_0.gguf", tq1},
		{"tiny-q2_0.gguf", q2},
		{"tiny-i2_s.gguf", i2s},
	}
}
