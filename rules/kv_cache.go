package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// kvCache: the generation cache grows with context × batch, or is
// preallocated to the model's maximum context.
func kvCache() Culprit {
	return Culprit{
		ID:             "kv-cache",
		Title:          "The generation KV cache: grows with context length × batch, or is preallocated to the maximum context",
		Doc:            "Generation keeps the attention keys and values of every past token: 2 × layers × KV heads × head_dim × bytes per token, times the batch (and beams). It grows by that much for each generated token, or — with a static cache — is allocated up front for the maximum sequence length whatever the prompt's length.",
		Recognise:      "Frames in generate, a cache update or torch.cat of past keys/values, a static cache or setup_caches preallocating max_seq_len; long max_new_tokens / max_length.",
		Excludes:       []string{parser.KindHostKill, parser.KindCPU},
		ExcludesPhases: []string{parser.PhaseLoad, parser.PhaseBackward, parser.PhaseOptimizer},
		GuessNeeds:     languageModelPossible,
		Signals: []Signal{
			{Name: kvMeasured, Strength: EvidenceSignal, Start: 4.0, Doc: "a memory snapshot shows the KV cache holding at least 15% of the active memory"},
			{Name: kvFrames, Strength: EvidenceSignal, Start: 2.0, Doc: "frames or lines that update or allocate the key/value cache"},
			{Name: kvServing, Strength: PriorSignal, Start: 0.0, Doc: "a serving engine's admission error"},
			{Name: kvGenerate, Strength: PriorSignal, Start: 0.3, Doc: "the failure is inside generate()"},
		},
		WouldDecide: "the context the cache is sized for, and the batch: prompt + max_new_tokens and beams in transformers, -c (n_ctx) in llama.cpp, max_model_len in vLLM",
		Capture:     "print input_ids.shape and the generation config (max_new_tokens, num_beams) before generate()",
		Assess:      checkKVCache,
	}
}

// Signals of kv-cache.
const (
	kvFrames   = "kv-cache/cache-frames"
	kvServing  = "kv-cache/serving-admission"
	kvGenerate = "kv-cache/generate-phase"
)

// kvCue holds the words that point at the generation KV cache:
// transformers' cache classes and layers (cache_utils.py), the older
// layer_past tuples, vLLM's cache engine and KV-cache allocation, SGLang's
// token-to-KV pool, TensorRT-LLM's KV-cache manager, llama.cpp's
// llama_kv_cache_… functions, mlx-lm's and ExLlamaV2's cache classes.
func kvCue() cue {
	return words("past_key_value", "kv_cache", "kv_caches", "KVCache", "RotatingKVCache", "QuantizedKVCache", "ExLlamaV2Cache", "key_cache", "value_cache", "cache_utils.py", "setup_caches", "StaticCache", "DynamicCache", "HybridCache", "SlidingWindowCache", "OffloadedCache", "QuantizedCache", "DynamicLayer", "StaticLayer", "cache.update", "past_key_values", "layer_past", "k_cache", "v_cache", "allocate_kv", "_allocate_kv_cache", "initialize_kv_cache", "cache_engine", "CacheEngine", "token_to_kv_pool", "mem_cache/", "kv_cache_manager", "KVCacheManager", "llama_kv_cache_", "buffer for kv cache", "max_cache_len", "cache_shape")
}

// ggmlCacheShape reads the KV cache's shape from llama.cpp's own lines
// ("n_layer = 32", "n_head_kv = 8", "n_embd_head_k = 128", "n_ctx =
// 131072"); ok is false unless all four are printed.
func (f *Facts) ggmlCacheShape() (layers, heads, dim, ctx int64, ok bool) {
	if f.Ev.Framework != "ggml" {
		return 0, 0, 0, 0, false
	}
	var v [4]int64
	for i, name := range []string{"n_layer", "n_head_kv", "n_embd_head_k", "n_ctx"} {
		s, found := f.Setting(name)
		n, err := strconv.ParseInt(s.Value, 10, 64)
		if !found || err != nil || n <= 0 || n > 1<<24 {
			return 0, 0, 0, 0, false
		}
		v[i] = n
	}
	return v[0], v[1], v[2], v[3], true
}

func checkKVCache(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "kv-cache", Event: ev.ID, Quantities: Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested, Inference: true}}
	measured := f.fireMeasured(fd, snapshot.KindKVCache, kvMeasured, 0.15)
	e, ok := f.Find(kvCue())
	if ok && f.setupReport(e) {
		// The cache's set-up above the failure is no evidence; the
		// runtime's own failure lines may still name the cache.
		e, ok = f.FindAfter(kvCue())
	}
	if ok || measured {
		if ok {
			fd.fire(kvFrames)
		}
		fd.Evidence = append(fd.Evidence, e)
		fd.Title = "The KV cache does not fit"
		fd.Explanation = "The failing allocation is the attention key/value cache. Its size is 2 × layers × KV heads × head_dim × bytes per token, times the tokens it is sized for."
		if _, pre := f.Find(words("setup_caches", "StaticCache", "max_cache_len", "cache_shape", "torch.zeros")); pre {
			fd.Variant = VariantStaticCache
			fd.Explanation += " Here it is preallocated up front (a static cache sized to the maximum sequence length), so it costs its full size before a single token is generated, whatever the prompt's length."
		}
	} else if ev.Kind == parser.KindServing {
		fd.fire(kvServing)
		fd.Evidence = append(fd.Evidence, f.EventLine())
		fd.Title = "The KV cache for the maximum context does not fit the serving budget"
		fd.Explanation = "The engine sizes its KV cache for at least one request at max_model_len; at the model's default context that exceeds what is left after the weights."
		if ev.MaxModelLen != nil {
			fd.Quantities.MaxModelLen = *ev.MaxModelLen
		}
	} else if ev.Phase == parser.PhaseGenerate {
		fd.fire(kvGenerate)
		fd.Evidence = append(fd.Evidence, f.EventLine())
		if e, ok := f.Find(parser.CueGenerate()); ok {
			fd.Evidence = append(fd.Evidence, e)
		}
		fd.Title = "Out of memory during generation"
		fd.Explanation = "The failure is inside generate(). The KV cache grows by a fixed amount per generated token and per batch row; long outputs, beams or batches make it the largest allocation after the weights."
		fd.Decide = "the input length, max_new_tokens and batch/beam count of the failing call"
	} else {
		return nil
	}
	if layers, heads, dim, ctx, ok := f.ggmlCacheShape(); ok && f.Requested > 0 && 2*layers*heads*dim*2*ctx == f.Requested {
		// llama.cpp printed the cache's shape: an exact identity, f16 K and V
		fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("%s = 2 × %d layers × %d KV heads × %d × 2 B × %s tokens (n_ctx)", size(f.Requested), layers, heads, dim, commas(ctx)))
		fd.Quantities.SeqLen = ctx
		fd.Quantities.KVBytesPerTok = 2 * layers * heads * dim * 2
	} else if f.Model != nil {
		per := f.Model.KVBytesPerToken(2)
		if per > 0 {
			fd.Model = f.Model.ID
			fd.Quantities.KVBytesPerTok = per
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("KV per token = 2 × %d layers × %d KV heads × %d × 2 B = %s", f.Model.Layers, f.Model.KVHeads, f.Model.HeadDim, size(per)))
			if f.Model.MaxContext > 0 {
				full := per * f.Model.MaxContext
				fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("at the full %s-token context: %s per sequence", commas(f.Model.MaxContext), size(full)))
				fd.Quantities.SeqLen = f.Model.MaxContext
			}
		}
	}
	return fd
}

// setupReport reports whether a cue line before the failure is a runtime's
// report of a cache it made: "llama_kv_cache_init: CUDA1 KV buffer size =
// 82.44 MiB", or any line of llama.cpp's cache set-up (its cells, layers
// and copy method) that names no failure. The cache was made; the
// allocation that failed came after it.
func (f *Facts) setupReport(e Evidence) bool {
	if e.Line >= f.Ev.Line {
		return false
	}
	if parser.SizeReport(e.Text) {
		return true
	}
	return f.Ev.Framework == "ggml" && !hasAny(strings.ToLower(e.Text), failureWordsCue().Words)
}

// failureWordsCue holds the (lower-case) words with which a runtime's log
// line says something failed.
func failureWordsCue() cue {
	return words("fail", "error", "out of memory", "unable", "cannot")
}
