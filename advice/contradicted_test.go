package advice

import (
	"reflect"
	"testing"

	"github.com/oomdoc/oomdoc/rules"
)

func TestRuledOutFixesNameRealIDs(t *testing.T) {
	known := map[string]bool{}
	for _, p := range Pages() {
		known[p.ID] = true
	}
	for wont, fixes := range ruledOutFixes() {
		if !known[wont] {
			t.Errorf("won't-help %q has no explain page", wont)
		}
		for _, id := range fixes {
			if !known[id] {
				t.Errorf("fix %q (ruled out by %q) has no explain page", id, wont)
			}
		}
	}
}

func TestDropRuledOut(t *testing.T) {
	diag := func(event string, fixes ...string) Diagnosis {
		d := Diagnosis{Finding: rules.Finding{Culprit: "activations", Event: event}}
		for _, id := range fixes {
			d.Fixes = append(d.Fixes, Fix{ID: id})
		}
		return d
	}
	ids := func(rep Report) [][]string {
		var out [][]string
		for _, d := range rep.Diagnoses {
			var fs []string
			for _, f := range d.Fixes {
				fs = append(fs, f.ID)
			}
			out = append(out, fs)
		}
		return out
	}
	rep := Report{
		Diagnoses: []Diagnosis{
			diag("e1", "smaller-micro-batch", "gradient-checkpointing", "train-lora"),
			diag("e2", "gradient-checkpointing"),
		},
		Ineffective: []Ineffective{{ID: "checkpointing-for-inference", Event: "e1"}, {ID: "empty-cache", Event: "e1"}},
	}
	rep.dropRuledOut()
	want := [][]string{{"smaller-micro-batch", "train-lora"}, {"gradient-checkpointing"}} // another failure keeps its own
	if got := ids(rep); !reflect.DeepEqual(got, want) {
		t.Errorf("fixes after dropRuledOut = %v, want %v", got, want)
	}
}

func TestPortableFixesNameRealIDs(t *testing.T) {
	known := map[string]bool{}
	for _, p := range Pages() {
		known[p.ID] = true
	}
	for id := range portableFixes() {
		if !known[id] {
			t.Errorf("portable fix %q has no explain page", id)
		}
	}
}
