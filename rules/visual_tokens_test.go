package rules

import "testing"

// TestAppImageWordsNeedALanguageModel: an application's "processing
// image" is the image path of a vision-language model only where a
// language model runs.
func TestAppImageWordsNeedALanguageModel(t *testing.T) {
	const oom = "RuntimeError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 10.76 GiB total capacity; 9.61 GiB already allocated; 41.44 MiB free; 9.84 GiB reserved in total by PyTorch)\n"
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"a segmentation network's eval loop", "[ 30/210] processing image...\nTraceback (most recent call last):\n  File \"/app/eval.py\", line 94, in <module>\n    logit = net(data)\n" + oom, false},
		{"llama.cpp's server on any backend", "srv  process_chun: processing image...\nggml_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, size = 4520.00 MiB\n", true},
		{"a vision-language model's frames", "processing image 3/8\nTraceback (most recent call last):\n  File \"/site-packages/transformers/models/llava_next/modeling_llava_next.py\", line 881, in forward\n    outputs = self.language_model(\n" + oom, true},
	} {
		fd := checkVisualTokens(factsOf(t, tc.log))
		if got := fd != nil; got != tc.want {
			t.Errorf("%s: visual-tokens %v, want %v", tc.name, got, tc.want)
		}
	}
}
