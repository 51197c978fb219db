package advice

import (
	"reflect"
	"testing"

	"github.com/oomdoc/oomdoc/parser"
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

func TestDropForeignSnippets(t *testing.T) {
	fixes := func() []Fix {
		return []Fix{
			{ID: "smaller-micro-batch", Snippet: "TrainingArguments(per_device_train_batch_size=4)"},
			{ID: "logits-to-keep", Snippet: "from liger_kernel.transformers import apply_liger_kernel_to_llama"},
			{ID: "split-large-tensor", Snippet: "# torch.split(x, n); MLX: a smaller prefill_step_size"},
			{ID: "fewer-gpu-layers", Snippet: "llama-server -ngl 20"},
		}
	}
	for _, tc := range []struct {
		framework string
		want      []string // fix id and whether its snippet is kept
	}{
		{"pytorch", []string{"smaller-micro-batch+", "logits-to-keep+", "split-large-tensor+", "fewer-gpu-layers+"}},
		{"", []string{"smaller-micro-batch+", "logits-to-keep+", "split-large-tensor+", "fewer-gpu-layers+"}},
		{"tensorflow", []string{"smaller-micro-batch-", "split-large-tensor-", "fewer-gpu-layers+"}},
		{"mlx", []string{"smaller-micro-batch-", "split-large-tensor+", "fewer-gpu-layers+"}},
	} {
		rep := Report{Diagnoses: []Diagnosis{{Finding: rules.Finding{Culprit: "activations", Event: "e1"}, Fixes: fixes()}}}
		rep.dropForeignSnippets(&parser.Result{Events: []parser.Event{{ID: "e1", Framework: tc.framework}}})
		var got []string
		for _, fx := range rep.Diagnoses[0].Fixes {
			mark := "-"
			if fx.Snippet != "" {
				mark = "+"
			}
			got = append(got, fx.ID+mark)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: fixes %v, want %v", tc.framework, got, tc.want)
		}
	}
}
