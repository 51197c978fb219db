package parser

import "testing"

// TestHasWord: whole identifiers stand alone, other words match as written.
func TestHasWord(t *testing.T) {
	tests := []struct {
		text  string
		words []string
		want  bool
	}{
		{"loss.backward()", []string{"backward"}, true},
		{"    return self._backward_hooks", []string{"backward"}, false},
		{"File \"train.py\", line 3, in train_step", []string{"train_"}, true},
		{"compute_loss(model, inputs)", []string{"loss"}, false},
		{"attn = torch.matmul(query, key.transpose(-1, -2))", []string{"key.transpose"}, true},
		{"vllm/worker/model_runner.py", []string{"vllm/"}, true},
		{"backward", []string{"backward"}, true},
		{"optimizer.step()", []string{"zero_grad", "step"}, true},
		{"", []string{"x"}, false},
	}
	for _, tc := range tests {
		if got := HasWord(tc.text, tc.words); got != tc.want {
			t.Errorf("HasWord(%q, %q) = %v, want %v", tc.text, tc.words, got, tc.want)
		}
	}
}
