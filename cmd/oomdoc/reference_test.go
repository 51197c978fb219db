package main

import (
	"strings"
	"testing"
)

// TestReferenceFirstScreens: issue 12's acceptance 2 on the two reference
// cases, at --width 100: the first 12 lines name the cause, the fix and
// its saving, and the LLaVA snippet loads with a class that accepts a
// LLaVA config.
func TestReferenceFirstScreens(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"ovis", []string{fixture("reference", "ovis2.5-2b-visual-softmax.log")},
			[]string{"Cause: visual-tokens (", "max_pixels=768*768 — saves ≈432.00 MiB, then it fits", "short by 262.44 MiB", "max_pixels=768*768)"}},
		{"llava --model", []string{"--model", "llava-hf/llava-1.5-13b-hf", fixture("reference", "llava-1.5-13b-load-12gib.log")},
			[]string{"Cause: weights-too-large", "saves ≈17.44 GiB, then it fits", "from transformers import LlavaForConditionalGeneration, BitsAndBytesConfig", "model = LlavaForConditionalGeneration.from_pretrained(", `"llava-hf/llava-1.5-13b-hf", quantization_config=bnb`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runWith(t, "", append([]string{"--color=never", "--width=100"}, tc.args...)...)
			lines := strings.Split(r.stdout, "\n")
			screen := strings.Join(lines[:min(12, len(lines))], "\n")
			for _, w := range tc.want {
				if !strings.Contains(screen, w) {
					t.Errorf("first 12 lines lack %q:\n%s", w, screen)
				}
			}
			if strings.Contains(r.stdout, "AutoModelForCausalLM") {
				t.Errorf("a snippet loads with AutoModelForCausalLM")
			}
		})
	}
}

// TestUnknownModelIsSaid: a --model oomdoc cannot use is said on stderr,
// and a known one is not.
func TestUnknownModelIsSaid(t *testing.T) {
	log := fixture("reference", "llava-1.5-13b-load-12gib.log")
	if r := runWith(t, "", "--model", "foo/bar", log); !strings.Contains(r.stderr, "--model foo/bar is not in the model catalogue") || r.code != 0 {
		t.Errorf("unknown --model: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runWith(t, "", "--model", "llava-hf/llava-1.5-13b-hf", log); r.stderr != "" {
		t.Errorf("known --model: stderr %q", r.stderr)
	}
}
