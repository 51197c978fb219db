package rules

import (
	"testing"

	"github.com/oomdoc/oomdoc/parser"
)

// TestLoadingAfter: a runtime that says model loading failed with or
// right after the allocation was loading, unless its lines say the
// weights loaded and the context after them could not be created.
func TestLoadingAfter(t *testing.T) {
	const fail = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8484.01 MiB on device 0: cudaMalloc failed: out of memory\n"
	for _, tc := range []struct {
		name, log string
		want      bool
	}{
		{"the weights fail", fail + "alloc_tensor_range: failed to allocate CUDA0 buffer of size 8896125952\nllama_model_load: error loading model: unable to allocate CUDA0 buffer\n", true},
		{"the context fails after them", fail + "graph_reserve: failed to allocate compute buffers\nllama_init_from_model: failed to initialize the context: failed to allocate compute pp buffers\nmain: error: unable to load model\n", false},
		{"the context fails, said on the next lines", fail + "llama_kv_cache_unified: failed to allocate buffer for kv cache\nllama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache\ncommon_init_from_params: failed to create context with model 'm.gguf'\nmain: error: unable to load model\n", false},
		{"nothing said after", fail, false},
	} {
		f := factsOf(t, tc.log)
		if got := f.Ev.Phase == parser.PhaseLoad || f.loadingAfter(); got != tc.want {
			t.Errorf("%s: loadingAfter %v, want %v", tc.name, got, tc.want)
		}
	}
}
