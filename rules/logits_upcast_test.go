package rules

import "testing"

// TestParameterNamesOnly: the output layer named as a parameter of a
// state dict is the weights; the same name in a forward computes logits.
func TestParameterNamesOnly(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"UserWarning: Failed to clone() tensor with name lm_head.weight. This may mean that this state_dict entry could point to invalid memory", true},
		{"return F.linear(hidden_states, self.lm_head.weight).float()", false},
		{"logits = self.lm_head(hidden_states)", false},
		{"saving lm_head.weight to the checkpoint, and logits = lm_head(h)", false},
	} {
		if got := parameterNamesOnly(tc.line); got != tc.want {
			t.Errorf("parameterNamesOnly(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
