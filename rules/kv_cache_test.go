package rules

import (
	"fmt"
	"strings"
	"testing"
)

// TestKVCacheNotFromSizeReports: llama.cpp logs each buffer it allocates;
// a KV buffer's size line before the failure is a cache that fit, while a
// failure that names the KV cache is one that did not.
func TestKVCacheNotFromSizeReports(t *testing.T) {
	const ctx = "llama_kv_cache_init:      CUDA0 KV buffer size =  2048.00 MiB\nllama_new_context_with_model: KV self size  = 2048.00 MiB\n"
	for _, tc := range []struct {
		name string
		log  string
		want bool
	}{
		{"the compute buffer fails after the cache fit", ctx + "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.25 MiB on device 0: cudaMalloc failed: out of memory\nggml_gallocr_reserve_n: failed to allocate CUDA0 buffer of size 6442713088\n", false},
		{"the cache itself fails", "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 8192.00 MiB on device 0: cudaMalloc failed: out of memory\nllama_kv_cache_init: failed to allocate buffer for kv cache\n", true},
		{"set-up lines, then the compute buffer fails", "llama_kv_cache_unified: LLAMA_SET_ROWS=0, using old ggml_cpy() method for backwards compatibility\nggml_vulkan: Device memory allocation of size 4757131264 failed.\nggml_gallocr_reserve_n: failed to allocate Vulkan0 buffer of size 4757131264\ngraph_reserve: failed to allocate compute buffers\n", false},
		{"the cache's set-up line, then the cache fails", "llama_kv_cache_unified: kv_size = 131072, type_k = 'f16', type_v = 'f16', n_layer = 32\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory\nllama_kv_cache_unified: failed to allocate buffer for kv cache\n", true},
	} {
		fd := checkKVCache(factsOf(t, tc.log))
		if got := fd != nil && len(fd.Signals) > 0 && fd.Signals[0] == kvFrames; got != tc.want {
			t.Errorf("%s: kv-cache frames evidence %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGGMLCacheArithmetic: llama.cpp prints the cache's shape; when 2 ×
// layers × KV heads × head size × 2 B × n_ctx is exactly the failed
// allocation, the finding states it, and not otherwise.
func TestGGMLCacheArithmetic(t *testing.T) {
	const meta = "llm_load_print_meta: n_layer          = 32\nllm_load_print_meta: n_head_kv        = 8\nllm_load_print_meta: n_embd_head_k    = 128\nllama_new_context_with_model: n_ctx      = 131072\n"
	const fail = "ggml_backend_cuda_buffer_type_alloc_buffer: allocating %s on device 0: cudaMalloc failed: out of memory\nllama_kv_cache_init: failed to allocate buffer for kv cache\n"
	for _, tc := range []struct {
		size string
		want bool
	}{{"16384.00 MiB", true}, {"8192.00 MiB", false}} {
		fd := checkKVCache(factsOf(t, meta+fmt.Sprintf(fail, tc.size)))
		got := fd != nil && strings.Contains(strings.Join(fd.Arithmetic, "|"), "2 × 32 layers × 8 KV heads × 128 × 2 B × 131,072 tokens")
		if got != tc.want {
			t.Errorf("%s: identity stated %v, want %v (%v)", tc.size, got, tc.want, fd)
		}
	}
}
