// Package models is oomdoc's embedded catalogue of model architecture
// facts: parameter counts, vocabularies and attention shapes for weight,
// KV-cache and tensor-shape arithmetic, plus the image-token facts of the
// vision-language models whose preprocessing drives memory.
//
// The table (catalog.tsv) comes from research/models.tsv: every row
// records its source, and verified=yes rows were read from a config.json.
package models

import (
	_ "embed"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed catalog.tsv
var catalogTSV string

// A Model is one catalogue row.
type Model struct {
	ID         string // "llava-hf/llava-1.5-13b-hf"
	Family     string // "llava-1.5"
	Params     int64  // total parameters
	Vocab      int64
	Hidden     int64
	Layers     int64 // of the language model
	Heads      int64
	KVHeads    int64
	HeadDim    int64
	MaxContext int64  // max_position_embeddings; 0 when it does not apply
	DType      string // the config's torch_dtype
	Vision     string // vision tower notes, "none" for text models
	Source     string
	Verified   bool
}

// Name is the part of the id after the organisation.
func (m Model) Name() string {
	if i := strings.LastIndexByte(m.ID, '/'); i >= 0 {
		return m.ID[i+1:]
	}
	return m.ID
}

// KVBytesPerToken is the KV cache one token costs at the given element
// size: 2 (K and V) × layers × KV heads × head_dim × bytes. It is 0 when the
// catalogue lacks a dimension.
func (m Model) KVBytesPerToken(bytesPerElem int64) int64 {
	return 2 * m.Layers * m.KVHeads * m.HeadDim * bytesPerElem
}

// A Catalog is the parsed table.
type Catalog struct {
	models []Model
}

// Load parses the embedded table. It never fails on the shipped table; a
// malformed row is skipped (the package's test proves none is).
func Load() Catalog {
	var c Catalog
	lines := strings.Split(strings.TrimSpace(catalogTSV), "\n")
	for _, line := range lines[1:] {
		if m, ok := parseRow(line); ok {
			c.models = append(c.models, m)
		}
	}
	return c
}

func parseRow(line string) (Model, bool) {
	f := strings.Split(strings.TrimRight(line, "\r"), "\t")
	if len(f) < 14 {
		return Model{}, false
	}
	n := func(s string) int64 {
		v, _ := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return v
	}
	m := Model{
		ID: f[0], Family: f[1], Params: n(f[2]), Vocab: n(f[3]), Hidden: n(f[4]), Layers: n(f[5]),
		Heads: n(f[6]), KVHeads: n(f[7]), HeadDim: n(f[8]), MaxContext: n(f[9]), DType: f[10],
		Vision: f[11], Source: f[12], Verified: strings.TrimSpace(f[13]) == "yes",
	}
	if m.HeadDim == 0 && m.Heads > 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	return m, m.ID != "" && m.Params > 0
}

// All returns every model in the catalogue.
func (c Catalog) All() []Model { return append([]Model(nil), c.models...) }

// Lookup finds a model by id ("org/name") or, failing that, by the name
// alone, case-insensitively ("Ovis2.5-2B", "llava-1.5-13b-hf").
func (c Catalog) Lookup(id string) (Model, bool) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Model{}, false
	}
	for _, m := range c.models {
		if strings.EqualFold(m.ID, id) {
			return m, true
		}
	}
	name := id
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		name = id[i+1:]
	}
	for _, m := range c.models {
		if strings.EqualFold(m.Name(), name) {
			return m, true
		}
	}
	return Model{}, false
}

// Siblings returns the models of the same family, smallest first.
func (c Catalog) Siblings(m Model) []Model {
	var out []Model
	for _, o := range c.models {
		if o.Family == m.Family && o.ID != m.ID {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Params < out[j].Params })
	return out
}

// Vocabularies returns the distinct vocabulary sizes in the catalogue plus
// common ones of models it does not list (Gemma 4's 262,144), sorted.
func (c Catalog) Vocabularies() []int64 {
	seen := map[int64]bool{262144: true, 32768: true, 100352: true, 200064: true, 163840: true}
	for _, m := range c.models {
		if m.Vocab > 1000 {
			seen[m.Vocab] = true
		}
	}
	out := make([]int64, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var reParamsInName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^a-z0-9.])(\d+(?:\.\d+)?)\s*([bm])(?:$|[^a-z0-9])`)
})
var reMoEInName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\d+x\d+(?:\.\d+)?b`) })

// ParamsFromName reads a parameter count from a model name ("13b" → 13e9,
// "0.5B" → 5e8, "135M" → 1.35e8). It refuses mixture-of-experts names
// ("8x7B"), whose total is not the product, and names with no size.
func ParamsFromName(name string) (int64, bool) {
	if reMoEInName().MatchString(name) {
		return 0, false
	}
	m := reParamsInName().FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	unit := 1e9
	if strings.EqualFold(m[2], "m") {
		unit = 1e6
	}
	return int64(v * unit), true
}
