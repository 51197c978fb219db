package advice

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/oomdoc/oomdoc/parser"
)

func servingFixes(c *fixContext) []Fix {
	ev := c.f.Ev
	q := c.fd.Quantities
	switch ev.Variant {
	case "vllm-startup":
		return []Fix{lowerGPUUtilisation()}
	case "tgi-warmup":
		return tgiFixes(ev)
	case "cache-budget-too-small":
		if ev.Framework == "" {
			return []Fix{engineCacheBudget(ev)}
		}
	}
	lenFix := Fix{
		ID:      "lower-max-model-len",
		Title:   "Set --max-model-len to what you need",
		Why:     "vLLM defaults max_model_len to the model's full context and needs the KV cache for one such request.",
		Snippet: "vllm serve MODEL --max-model-len N   # N: the longest prompt + output you serve\n# Python: LLM(model, max_model_len=N)",
		Caveat:  "Longer prompts are rejected.",
	}
	if q.EstimatedLen > 0 {
		lenFix.Snippet = fmt.Sprintf("vllm serve MODEL --max-model-len %d   # the largest that fits, per vLLM's own estimate\n# Python: LLM(model, max_model_len=%d)", q.EstimatedLen, q.EstimatedLen)
		if q.MaxModelLen > 0 {
			lenFix.Saving = fmt.Sprintf("max_model_len %s → %s", commas(q.MaxModelLen), commas(q.EstimatedLen))
		}
	}
	if q.ShortfallBytes > 0 {
		lenFix.SavesBytes = bytesp(q.ShortfallBytes)
	}
	util := Fix{
		ID:      "raise-gpu-memory-utilization",
		Title:   "Give vLLM a larger share of the device: --gpu-memory-utilization 0.95",
		Why:     "The KV cache gets what is left of this fraction after weights and activations.",
		Snippet: "vllm serve MODEL --gpu-memory-utilization 0.95",
		Caveat:  "Only if nothing else uses the GPU; too high fails at startup or during CUDA-graph capture.",
	}
	fp8 := Fix{
		ID:      "fp8-kv-cache",
		Title:   "Store the KV cache in fp8",
		Why:     "fp8 halves the cache per token, doubling the context that fits.",
		Snippet: "vllm serve MODEL --kv-cache-dtype fp8",
		Caveat:  "Small accuracy cost; needs a GPU and attention backend that support it.",
	}
	if c.f.Requested > 0 {
		fp8.SavesBytes = bytesp(c.f.Requested / 2)
		fp8.Saving = "KV needed " + size(c.f.Requested) + " → " + size(c.f.Requested/2)
	}
	if ev.Kind != parser.KindServing {
		// A CUDA OOM inside the engine: it needs less of the device, not more.
		util = Fix{}
	}
	out := []Fix{lenFix, fp8, util}
	if ev.Variant == "vllm-no-cache-blocks" || ev.Variant == "vllm-negative-kv" {
		// The weights and the profiled activations already fill the
		// share: the cache's size per token and the context are not the
		// problem, what comes before the cache is.
		return append([]Fix{util, {
			ID:      "vllm-enforce-eager",
			Title:   "Skip CUDA-graph capture: --enforce-eager",
			Why:     "CUDA graphs keep their own memory pools beside the weights; eager mode captures none, leaving that memory to the KV cache.",
			Snippet: "vllm serve MODEL --enforce-eager\n# Python: LLM(model, enforce_eager=True)",
			Caveat:  "Slower decoding, mostly at small batch sizes.",
		}}, vllmWeightsFixes(c)...)
	}
	if g := c.lf.cudaGraphs; g != nil && ev.Kind != parser.KindServing {
		out = append([]Fix{{
			ID:      "vllm-enforce-eager",
			Title:   "Skip CUDA-graph capture: --enforce-eager",
			Saving:  fmt.Sprintf("line %d: vLLM was capturing CUDA graphs", g.Line),
			Why:     "CUDA graphs keep their own memory pools on top of the KV cache and the weights; eager mode captures none.",
			Snippet: "vllm serve MODEL --enforce-eager\n# Python: LLM(model, enforce_eager=True)",
			Caveat:  "Slower decoding, mostly at small batch sizes.",
			cites:   []fact{*g},
		}}, out...)
	}
	return append(out, Fix{
		ID:      "lower-max-num-seqs",
		Title:   "Lower --max-num-seqs",
		Why:     "Fewer concurrent sequences lower the activation peak vLLM profiles for, leaving more for the cache.",
		Snippet: "vllm serve MODEL --max-num-seqs 64",
		Caveat:  "Lower throughput under load.",
	})
}

// reEngineHint reads the remedy a serving engine's own refusal names in
// parentheses: "(raise memory_ratio, lower kv_reserve_tokens, or free GPU
// memory)".
var reEngineHint = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\(((?i:raise|lower|increase|decrease|reduce|set|use|free)\b[^()]*)\)`)
})

// engineCacheBudget is the change for an engine oomdoc has no spellings
// for, whose cache budget cannot hold its smallest plan: the settings its
// own message names, quoted from the log.
func engineCacheBudget(ev *parser.Event) Fix {
	fx := Fix{
		ID:      "engine-cache-budget",
		Title:   "Give the engine's cache more room: a larger share of the device, a shorter reserved context, or a free device",
		Why:     "The engine sizes its cache from what is left after the weights and its reserves, and refused to start because that cannot hold its smallest plan.",
		Snippet: "# the settings your engine's documentation names for its memory share and the context it reserves",
		Caveat:  "A larger share leaves less for other processes; a shorter context rejects longer prompts.",
	}
	if m := reEngineHint().FindStringSubmatch(ev.Message); m != nil {
		fx.Snippet = fmt.Sprintf("# the engine's own words (line %d): %s", ev.Line, m[1])
		fx.cites = []fact{{Line: ev.Line, Token: m[1], Text: "the engine's own remedy"}}
	}
	return fx
}

// tgiFixes are the changes for TGI's warm-up refusal: a smaller prefill
// batch first, then more memory per token of it.
func tgiFixes(ev *parser.Event) []Fix {
	prefill := Fix{
		ID:      "lower-max-batch-prefill-tokens",
		Title:   "Lower --max-batch-prefill-tokens",
		Why:     "TGI warms up with one prefill batch of this many tokens; its activations grow with them, and a smaller batch leaves the rest for the KV cache.",
		Snippet: "text-generation-launcher --model-id MODEL --max-batch-prefill-tokens 8192",
		Caveat:  "--max-input-tokens (--max-input-length in older releases) may not exceed it: lower that too if it was higher, and prompts longer than it are refused.",
	}
	if n := ev.PrefillTokens; n != nil && *n >= 2 {
		half := *n / 2
		prefill.Saving = fmt.Sprintf("prefill batch %s → %s tokens", commas(*n), commas(half))
		prefill.Snippet = fmt.Sprintf("text-generation-launcher --model-id MODEL --max-batch-prefill-tokens %d   # half the refused batch", half)
	}
	return []Fix{prefill, {
		ID:      "tgi-shard-or-quantize",
		Title:   "Shard the model over more GPUs, or quantise it",
		Why:     "Each shard holds a part of the weights, and a quantised checkpoint holds fewer bytes: both leave more of each device for the prefill batch and the cache.",
		Snippet: "text-generation-launcher --model-id MODEL --num-shard 4\n# or: --quantize bitsandbytes-nf4 (or awq / gptq / fp8 for a checkpoint made for it)",
		Caveat:  "Sharding needs that many GPUs; quantisation costs some accuracy.",
	}}
}
