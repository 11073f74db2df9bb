package card

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Hub metadata: the YAML front matter the Hugging Face hub reads from a
// model card (library_name, license, base_model, tags, quantized_by), filled
// from the file's general.* keys (GGUF's own naming convention) unless the
// options override them.

// Meta is the card's hub metadata.
type Meta struct {
	License     string   // general.license
	BaseModels  []string // "org/name" from general.base_model.N.*
	Tags        []string // gguf, bitcos, ternary, then general.tags
	QuantizedBy string   // who made the repack
}

// metaOf reads f's general.* keys, then applies opt's overrides.
func metaOf(f *ggufx.File, opt Options) Meta {
	m := Meta{Tags: []string{"gguf", "bitcos", "ternary"}, QuantizedBy: "gguf-bitcos"}
	m.License, _ = kvString(f, "general.license")
	n := uint64(0)
	if kv, ok := f.KV("general.base_model.count"); ok {
		n, _ = kv.AsUint64()
	}
	for i := uint64(0); i < min(n, 64); i++ {
		if bm := baseModel(f, fmt.Sprintf("general.base_model.%d.", i)); bm != "" {
			m.BaseModels = append(m.BaseModels, bm)
		}
	}
	if kv, ok := f.KV("general.tags"); ok {
		if tags, ok := kv.StringArray(); ok {
			m.Tags = appendNew(m.Tags, tags...)
		}
	}
	if opt.License != "" {
		m.License = opt.License
	}
	if len(opt.BaseModels) > 0 {
		m.BaseModels = opt.BaseModels
	}
	m.Tags = appendNew(m.Tags, opt.Tags...)
	if opt.QuantizedBy != "" {
		m.QuantizedBy = opt.QuantizedBy
	}
	return m
}

// baseModel is the hub id of a general.base_model.N.* entry: the path of a
// huggingface.co repo_url, else organization/name.
func baseModel(f *ggufx.File, prefix string) string {
	if u, ok := kvString(f, prefix+"repo_url"); ok {
		if p, err := url.Parse(u); err == nil && strings.HasSuffix(p.Host, "huggingface.co") {
			if id := strings.Trim(p.Path, "/"); strings.Count(id, "/") == 1 {
				return id
			}
		}
	}
	name, _ := kvString(f, prefix+"name")
	org, _ := kvString(f, prefix+"organization")
	switch {
	case name == "":
		return ""
	case org == "":
		return name
	}
	return strings.ReplaceAll(org, " ", "-") + "/" + strings.ReplaceAll(name, " ", "-")
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" && !slices.Contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// frontMatter is m as YAML front matter (every string quoted, so no value
// can change the document's structure).
func frontMatter(m Meta) string {
	var b strings.Builder
	b.WriteString("---\nlibrary_name: gguf\n")
	if m.License != "" {
		fmt.Fprintf(&b, "license: %s\n", strconv.Quote(m.License))
	}
	if len(m.BaseModels) > 0 {
		b.WriteString("base_model:\n")
		for _, bm := range m.BaseModels {
			fmt.Fprintf(&b, "- %s\n", strconv.Quote(bm))
		}
		b.WriteString("base_model_relation: quantized\n")
	}
	b.WriteString("tags:\n")
	for _, t := range m.Tags {
		fmt.Fprintf(&b, "- %s\n", strconv.Quote(t))
	}
	fmt.Fprintf(&b, "quantized_by: %s\n---\n\n", strconv.Quote(m.QuantizedBy))
	return b.String()
}
