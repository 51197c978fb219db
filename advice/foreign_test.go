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
		kind      string
		want      []string // fix id and whether its snippet is kept
	}{
		{"pytorch", parser.KindCUDA, []string{"smaller-micro-batch+", "logits-to-keep+", "split-large-tensor+", "fewer-gpu-layers+"}},
		{"", parser.KindCUDA, []string{"smaller-micro-batch+", "logits-to-keep+", "split-large-tensor+", "fewer-gpu-layers+"}},
		{"", parser.KindGeneric, []string{"smaller-micro-batch-", "split-large-tensor-", "fewer-gpu-layers+"}},
		{"tensorflow", parser.KindTF, []string{"smaller-micro-batch-", "split-large-tensor-", "fewer-gpu-layers+"}},
		{"mlx", parser.KindMPS, []string{"smaller-micro-batch-", "split-large-tensor+", "fewer-gpu-layers+"}},
	} {
		rep := Report{Diagnoses: []Diagnosis{{Finding: rules.Finding{Culprit: "activations", Event: "e1"}, Fixes: fixes()}}}
		rep.dropForeignSnippets(&parser.Result{Events: []parser.Event{{ID: "e1", Framework: tc.framework, Kind: tc.kind}}})
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

// TestDropDeviceless: bitsandbytes and CPU offload are offered only where
// a discrete NVIDIA or AMD GPU runs.
func TestDropDeviceless(t *testing.T) {
	for _, tc := range []struct {
		device string
		want   []string
	}{
		{"cuda", []string{"load-in-4bit", "cpu-offload", "smaller-model"}},
		{"rocm", []string{"load-in-4bit", "cpu-offload", "smaller-model"}},
		{"mps", []string{"smaller-model"}},
		{"xpu", []string{"smaller-model"}},
	} {
		rep := Report{Diagnoses: []Diagnosis{{Finding: rules.Finding{Culprit: "weights-too-large", Event: "e1"}, Fixes: []Fix{{ID: "load-in-4bit"}, {ID: "cpu-offload"}, {ID: "smaller-model"}}}}}
		rep.dropDeviceless(&parser.Result{Events: []parser.Event{{ID: "e1", Device: &parser.Device{Type: tc.device}}}})
		var got []string
		for _, fx := range rep.Diagnoses[0].Fixes {
			got = append(got, fx.ID)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: fixes %v, want %v", tc.device, got, tc.want)
		}
	}
}

// TestShowsOwnModel: a traceback through a module's forward with no Hugging
// Face frame runs the program's own model; a Hub model's frames, a model id
// in the log, a traceback that never reaches a forward, or none at all say
// nothing either way.
func TestShowsOwnModel(t *testing.T) {
	fwd := parser.Frame{File: "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", Function: "_call_impl"}
	user := parser.Frame{File: "/home/dev/proj/train.py", Function: "validate", Code: "outputs = model(images)"}
	hf := parser.Frame{File: "/opt/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py", Function: "forward"}
	to := parser.Frame{File: "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", Function: "to"}
	for _, tc := range []struct {
		name   string
		frames []parser.Frame
		models []parser.ModelRef
		want   bool
	}{
		{"own model's forward", []parser.Frame{user, fwd}, nil, true},
		{"a transformers model", []parser.Frame{user, fwd, hf}, nil, false},
		{"a model id in the log", []parser.Frame{user, fwd}, []parser.ModelRef{{ID: "org/name"}}, false},
		{"moving weights, no forward", []parser.Frame{user, to}, nil, false},
		{"no traceback", nil, nil, false},
	} {
		res := &parser.Result{Context: parser.Context{Models: tc.models}}
		if got := showsOwnModel(res, &parser.Event{Frames: tc.frames}); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
