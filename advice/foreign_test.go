package advice

import (
	"reflect"
	"testing"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

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
