package rules

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// servingMemoryBudget: a serving engine's memory budget (vLLM, TGI,
// SGLang): weights plus the KV cache for max_model_len do not fit what
// gpu_memory_utilization leaves.
func servingMemoryBudget() Culprit {
	return Culprit{
		ID:        "serving-memory-budget",
		Title:     "A serving engine's memory budget: weights + KV cache for max_model_len exceed gpu_memory_utilization",
		Doc:       "Serving engines (vLLM, SGLang, TGI, LMDeploy) take a fixed share of the device (gpu_memory_utilization, mem_fraction_static, cache_max_entry_count) and divide it between the weights, activation and CUDA-graph workspace, and the KV cache. They refuse to start when one request at the maximum context cannot fit the cache, or when less is free than the share they were told to use. A shorter max_model_len, a quantised checkpoint, tensor parallelism or a different share fixes it.",
		Recognise: "vLLM's \"No available memory for the cache blocks\", \"max seq len … larger than the maximum number of tokens that can be stored in KV cache\", \"KV cache is needed, which is larger than the available KV cache memory\", \"Free memory on device … on startup is less than desired GPU memory utilization\".",
		Excludes:  []string{parser.KindHostKill, parser.KindCPU},
		Signals: []Signal{
			{Name: servingAdmission, Strength: EvidenceSignal, Start: 3.0, Doc: "a serving engine's own memory-budget error"},
			{Name: servingStartup, Strength: EvidenceSignal, Start: 1.5, Doc: "a serving engine's start-up free-memory check"},
			{Name: servingInside, Strength: EvidenceSignal, Start: 0.8, Doc: "a framework OOM inside a serving engine's code"},
			{Name: servingWrapped, Strength: HypothesisSignal, Start: -1.0, Doc: "a serving engine's memory refusal raised from an error that names no memory failure"},
		},
		WouldDecide: "the engine's memory settings (gpu_memory_utilization, max_model_len) and the model's size",
		Capture:     "the engine's start-up log lines that report the model's weight memory and the KV-cache size",
		Assess:      checkServingBudget,
	}
}

// Signals of serving-memory-budget.
const (
	servingAdmission = "serving-memory-budget/admission-error"
	servingStartup   = "serving-memory-budget/startup-check"
	servingInside    = "serving-memory-budget/oom-inside-engine"
	servingWrapped   = "serving-memory-budget/wrapped-other-error"
)

func checkServingBudget(f *Facts) *Finding {
	ev := f.Ev
	fd := &Finding{Culprit: "serving-memory-budget", Event: ev.ID, Quantities: Quantities{RequestedBytes: f.Requested, Inference: true}}
	if ev.Kind != parser.KindServing {
		e, ok := f.Find(parser.CueServing())
		if !ok && ev.Framework != "vllm" {
			return nil
		}
		if !ok {
			e = f.EventLine() // printed by a vLLM process
		}
		fd.fire(servingInside)
		fd.Evidence = append(fd.Evidence, e, f.EventLine())
		fd.Title = "Out of memory inside a serving engine"
		fd.Explanation = "The serving engine reserves gpu_memory_utilization of the device for weights, activations and the KV cache; an OOM inside it means that budget, the CUDA graphs or the sampler's warm-up do not fit."
		return fd
	}
	fd.Evidence = append(fd.Evidence, f.EventLine())
	switch ev.Variant {
	case "vllm-startup":
		fd.fire(servingStartup)
		fd.Title = "Less free memory at startup than gpu_memory_utilization asks for"
		fd.Explanation = "vLLM checks that the fraction of the device it was told to use is free when it starts. Something else holds part of it; lower gpu_memory_utilization or free the device."
	case "tgi-warmup":
		if c := ev.RaisedFrom; c != nil && !namesMemory(c.Text) {
			// Some releases caught every warm-up error and reported it
			// as memory: the error it was raised from is the cause.
			fd.fire(servingWrapped)
			fd.Evidence = append(fd.Evidence, Evidence{Input: f.Input, Line: c.Line, Text: c.Text})
			fd.Title = "TGI's warm-up failed on another error and reports it as memory"
			fd.Explanation = "TGI raised its \"Not enough memory\" message from an error that names no memory failure; some releases wrapped every warm-up error so. That error is the one to fix, and a smaller prefill batch may not help."
			fd.Decide = fmt.Sprintf("whether the error TGI wrapped (line %d) is a memory failure at all", c.Line)
			break
		}
		fd.fire(servingAdmission)
		fd.Title = "TGI's warm-up prefill batch does not fit beside the weights"
		fd.Explanation = "At start-up TGI runs one prefill batch of --max-batch-prefill-tokens tokens to size what is left for its KV cache; that batch's activations did not fit in the memory the weights leave. A smaller prefill batch, more shards or a quantised model fixes it."
	case "cache-budget-too-small":
		fd.fire(servingAdmission)
		fd.Title = "The memory left for the engine's cache cannot hold its smallest plan"
		fd.Explanation = "The engine sizes its cache from the memory left after the weights and its reserves, and refuses to start when that budget cannot hold the smallest cache it can run with. A smaller reserve for context, a larger share of the device, a quantised checkpoint or freeing the device fixes it."
	case "vllm-no-cache-blocks", "vllm-negative-kv":
		fd.fire(servingAdmission)
		fd.Title = "Nothing is left for the KV cache after the weights and activations"
		fd.Explanation = "After loading the weights and profiling a forward pass, vLLM found no memory left inside gpu_memory_utilization for KV-cache blocks."
	default:
		fd.fire(servingAdmission)
		fd.Title = "The KV cache for one max-length request exceeds the budget"
		fd.Explanation = "vLLM admits a configuration only if one request at max_model_len fits its KV cache. The model's default context is longer than the budget left after the weights allows."
		if ev.MaxModelLen != nil {
			fd.Quantities.MaxModelLen = *ev.MaxModelLen
		}
		if ev.EstimatedMaxLen != nil {
			fd.Quantities.EstimatedLen = *ev.EstimatedMaxLen
		}
		if ev.KVCacheTokens != nil {
			fd.Quantities.EstimatedLen = *ev.KVCacheTokens
		}
		if ev.RequestedBytes != nil && ev.KVCacheAvailableBytes != nil {
			fd.Quantities.ShortfallBytes = *ev.RequestedBytes - *ev.KVCacheAvailableBytes
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("KV needed %s − available %s = %s short", size(*ev.RequestedBytes), size(*ev.KVCacheAvailableBytes), size(fd.Quantities.ShortfallBytes)))
		}
		if fd.Quantities.MaxModelLen > 0 && fd.Quantities.EstimatedLen > 0 {
			fd.Arithmetic = append(fd.Arithmetic, fmt.Sprintf("max_model_len %s → fits %s", commas(fd.Quantities.MaxModelLen), commas(fd.Quantities.EstimatedLen)))
		}
	}
	return fd
}

// namesMemory reports whether an error line speaks of a memory failure.
func namesMemory(text string) bool {
	return hasAny(strings.ToLower(text), []string{"out of memory", "outofmemory", "resource exhausted", "resource_exhausted", "alloc"})
}
