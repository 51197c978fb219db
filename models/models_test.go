package models

import (
	"strings"
	"testing"
)

// TestCatalogParses: every row of the shipped table parses.
func TestCatalogParses(t *testing.T) {
	rows := len(strings.Split(strings.TrimSpace(catalogTSV), "\n")) - 1
	if got := len(Load().All()); got != rows {
		t.Errorf("parsed %d of %d rows", got, rows)
	}
}

func TestLookup(t *testing.T) {
	c := Load()
	tests := []struct {
		in     string
		id     string
		params int64
	}{
		{"llava-hf/llava-1.5-13b-hf", "llava-hf/llava-1.5-13b-hf", 13351494656},
		{"AIDC-AI/Ovis2.5-2B", "AIDC-AI/Ovis2.5-2B", 2570429672},
		{"ovis2.5-2b", "AIDC-AI/Ovis2.5-2B", 2570429672},
		{"someone/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", 7615616512},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m, ok := c.Lookup(tc.in)
			if !ok || m.ID != tc.id || m.Params != tc.params {
				t.Errorf("Lookup(%q) = %s %d %v", tc.in, m.ID, m.Params, ok)
			}
		})
	}
	if _, ok := c.Lookup("nobody/unknown-model"); ok {
		t.Error("found an unknown model")
	}
}

func TestKVBytesPerToken(t *testing.T) {
	c := Load()
	tests := []struct {
		id   string
		want int64 // research/models.md §2, bf16
	}{
		{"meta-llama/Llama-2-7b-hf", 512 << 10},
		{"meta-llama/Meta-Llama-3-8B", 128 << 10},
		{"Qwen/Qwen2.5-7B-Instruct", 56 << 10},
		{"Qwen/Qwen3-8B", 144 << 10},
	}
	for _, tc := range tests {
		m, _ := c.Lookup(tc.id)
		if got := m.KVBytesPerToken(2); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.id, got, tc.want)
		}
	}
}

func TestParamsFromName(t *testing.T) {
	tests := []struct {
		name string
		want int64
		ok   bool
	}{
		{"llama-13b", 13e9, true},
		{"Qwen2.5-0.5B-Instruct", 5e8, true},
		{"SmolLM-135M", 135e6, true},
		{"Mixtral-8x7B", 0, false},
		{"Qwen2.5-VL", 0, false},
		{"Phi-3-mini-4k", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParamsFromName(tc.name)
			if ok != tc.ok || got != tc.want {
				t.Errorf("ParamsFromName(%q) = %d, %v", tc.name, got, ok)
			}
		})
	}
}

func TestSiblings(t *testing.T) {
	c := Load()
	m, _ := c.Lookup("llava-hf/llava-1.5-13b-hf")
	sib := c.Siblings(m)
	if len(sib) != 1 || sib[0].ID != "llava-hf/llava-1.5-7b-hf" {
		t.Errorf("siblings of llava-1.5-13b: %v", sib)
	}
}
