package rules

import (
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// TestOwnAttention: attention the program writes itself gets torch's
// fused call, attention inside an installed library's model does not.
func TestOwnAttention(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string
		want  bool
	}{
		{"the program's own module", []string{"eval.py", "/usr/lib/python3.8/site-packages/torch/nn/modules/module.py", "/home/u/model.py"}, true},
		{"a transformers model", []string{"run.py", "/opt/conda/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py"}, false},
		{"a remote-code model in the HF cache", []string{"run.py", "/root/.cache/huggingface/modules/transformers_modules/m/modeling.py"}, false},
		{"a torch function last", []string{"/home/u/model.py", "/usr/lib/python3/dist-packages/torch/functional.py"}, false},
		{"a Windows path", []string{`C:\work\attn.py`}, true},
		{"no frames", nil, false},
	} {
		ev := &parser.Event{}
		for _, f := range tc.files {
			ev.Frames = append(ev.Frames, parser.Frame{File: f})
		}
		if got := (&Facts{Ev: ev}).OwnAttention(); got != tc.want {
			t.Errorf("%s: OwnAttention = %v, want %v", tc.name, got, tc.want)
		}
	}
}
