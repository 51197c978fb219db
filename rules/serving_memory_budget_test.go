package rules

import "testing"

// TestTGIWarmupWrapped: TGI's warm-up refusal is a memory budget when it
// stands alone or was raised from a CUDA OOM, and only a hypothesis when
// it was raised from an error that names no memory failure.
func TestTGIWarmupWrapped(t *testing.T) {
	const refusal = "RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`\n"
	chain := func(cause string) string {
		return "Traceback (most recent call last):\n  File \"/srv/flash_causal_lm.py\", line 813, in generate_token\n    out = self.forward(batch)\n" + cause + "\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"/srv/flash_causal_lm.py\", line 729, in warmup\n    raise RuntimeError(\n" + refusal
	}
	for _, tc := range []struct {
		name, log, want string
	}{
		{"the refusal alone", refusal, servingAdmission},
		{"raised from a CUDA OOM", chain("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.12 GiB is free."), servingAdmission},
		{"raised from another error", chain("RuntimeError: CUDA error: no kernel image is available for execution on the device"), servingWrapped},
	} {
		res := factsOf(t, tc.log).Res
		f := NewFacts(Input{Result: res}, len(res.Events)-1)
		fd := checkServingBudget(f)
		if fd == nil || len(fd.Signals) == 0 || fd.Signals[0] != tc.want {
			t.Errorf("%s: %+v, want signal %s", tc.name, fd, tc.want)
		}
	}
}
