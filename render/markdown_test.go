package render

import "testing"

// TestRecipeLanguage: a capture recipe's fence says what it is — the
// snapshot recording is Python, the kernel-log and cgroup reads are shell.
func TestRecipeLanguage(t *testing.T) {
	for _, tc := range []struct{ recipe, want string }{
		{"import torch\ntorch.cuda.memory._record_memory_history(max_entries=100_000)", "python"},
		{"sudo dmesg -T | grep -iE 'killed process|out of memory|oom'", "sh"},
		{"cat /sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/memory.events", "sh"},
	} {
		if got := recipeLanguage(tc.recipe); got != tc.want {
			t.Errorf("recipeLanguage(%.30q) = %q, want %q", tc.recipe, got, tc.want)
		}
	}
}

func TestSnippetLang(t *testing.T) {
	for s, want := range map[string]string{
		"resources:\n  limits:\n    memory: 64Gi": "yaml",
		"#SBATCH --mem=64G":                       "sh",
		"vllm serve MODEL --max-model-len N":      "sh",
		"model.gradient_checkpointing_enable()":   "python",
	} {
		if got := snippetLang(s); got != want {
			t.Errorf("snippetLang(%q) = %q, want %q", s, got, want)
		}
	}
}
