package rules

import "testing"

func TestDiffusionPipeline(t *testing.T) {
	const oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.02 GiB is free."
	for _, tc := range []struct {
		name string
		log  string
		want bool
	}{
		{"a diffusers frame", `  File "/venv/lib/python3.11/site-packages/diffusers/pipelines/stable_diffusion/pipeline_stable_diffusion.py", line 1012, in __call__
    image = self.vae.decode(latents / self.vae.config.scaling_factor, return_dict=False)[0]`, true},
		{"ComfyUI's sampler node", `  File "/ComfyUI/nodes.py", line 1439, in sample
    return common_ksampler(model, seed, steps, cfg, sampler_name, scheduler, positive, negative, latent_image, denoise=denoise)`, true},
		{"a learning-rate scheduler in a training loop", `  File "/work/train.py", line 88, in train
    scheduler.step()
  File "/work/train.py", line 80, in train
    loss = model(**batch).loss`, false},
		{"vLLM's scheduler", `  File "/venv/lib/python3.11/site-packages/vllm/core/scheduler.py", line 1201, in schedule
    scheduler_outputs = self._schedule()`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := factsOf(t, "Traceback (most recent call last):\n"+tc.log+"\n"+oom+"\n")
			if got := f.diffusionPipeline(); got != tc.want {
				t.Errorf("diffusionPipeline() = %v, want %v", got, tc.want)
			}
		})
	}
}
