package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// ineffectiveFor lists the popular remedies that the evidence rules out
// (research/peers.md §10), each with the reason for this crash.
func ineffectiveFor(fs []rules.Finding, f *rules.Facts, env Env) []Ineffective {
	out := []Ineffective{}
	ev := f.Ev
	add := func(id, title, why string) {
		out = append(out, Ineffective{ID: id, Title: title, Why: why, Event: ev.ID})
	}
	top := ""
	if len(fs) > 0 {
		top = fs[0].Culprit
	}
	has := func(id string) bool {
		for _, fd := range fs {
			if fd.Culprit == id && fd.Basis == rules.BasisEvidence {
				return true
			}
		}
		return false
	}
	gpuAllocator := ev.Kind == parser.KindCUDA || ev.Kind == parser.KindHIP || ev.Kind == parser.KindXPU || ev.Kind == parser.KindMPS && ev.Framework == "pytorch"
	inference := !f.TrainingLikely() && (f.Inference > 0 || ev.Phase == parser.PhaseGenerate || ev.Phase == parser.PhaseLoad || ev.Phase == parser.PhaseEval || top == "weights-too-large" || top == "visual-tokens" || top == "kv-cache")

	if gpuAllocator && (!f.UnallocKnown || f.Unallocated < f.Requested) {
		why := "PyTorch's allocator already returned every cached block to the driver and retried before raising this error; empty_cache() only hands memory to other processes."
		if f.UnallocKnown {
			why += fmt.Sprintf(" Here only %s was cached and unused.", size(f.Unallocated))
		}
		add("empty-cache", "torch.cuda.empty_cache()", why)
	}
	if gpuAllocator && f.UnallocKnown && f.Requested > 0 && f.Unallocated < f.Requested && top != "fragmentation" {
		add("fragmentation-settings", "expandable_segments / max_split_size_mb", fmt.Sprintf("These only help when reserved-but-unallocated memory could hold the request. Here it is %s against a %s request: there is no fragmentation to undo.", size(f.Unallocated), size(f.Requested)))
	}
	if inference && !has("activations") {
		add("checkpointing-for-inference", "Gradient checkpointing", "It trades compute for the activations saved for backward(); inference keeps none (and HF models only checkpoint in training mode), so it frees nothing here.")
	}
	if inference {
		if _, ok := f.Notice("pad-token-id-warning"); ok || ev.Phase == parser.PhaseGenerate || top == "weights-too-large" && ev.Phase == parser.PhaseLoad {
			add("pad-token-id", "Setting pad_token_id", "\"Setting `pad_token_id` to `eos_token_id`\" is an informational warning; the setting has no effect on memory.")
		}
		switch ev.Phase {
		case parser.PhaseForward, parser.PhaseEval, parser.PhaseGenerate:
			if top != "no-grad-missing" {
				add("model-eval", "model.eval() alone", "eval() only switches dropout and batch-norm behaviour; it neither disables autograd nor frees memory.")
			}
		}
	}
	if top == "weights-too-large" && ev.Phase == parser.PhaseLoad {
		add("low-cpu-mem-usage", "low_cpu_mem_usage=True", "It limits host RAM while loading; the GPU still has to hold every weight.")
		add("reduce-batch-size", "Reducing the batch size", "The failure happens while loading the weights, before any batch exists.")
	} else if top == "weights-too-large" && fs[0].Confidence >= 0.85 {
		add("reduce-batch-size", "Reducing the batch size", "The weights alone exceed the device; no batch size makes them fit.")
	}
	if has("kv-cache") {
		add("static-cache", "cache_implementation=\"static\" to save memory", "A static cache preallocates max_cache_len for every layer up front: it saves time, not memory. The memory-saving caches are \"offloaded\" and \"quantized\".")
	}
	if has("logits-upcast") {
		if s, ok := f.Setting("num_logits_to_keep"); ok || atLeastKnown(env.Transformers, 4, 50) {
			why := "Renamed to logits_to_keep in transformers 4.49; since the shim was removed the old name is swallowed by **kwargs and ignored, silently."
			if ok {
				why += fmt.Sprintf(" The log passes it at line %d.", s.Line)
			}
			add("num-logits-to-keep", "num_logits_to_keep=1", why)
		}
	}
	if n, ok := f.Notice("alloc-conf-in-python"); ok && gpuAllocator {
		add("alloc-conf-in-python", "Setting PYTORCH_CUDA_ALLOC_CONF from Python", fmt.Sprintf("The allocator reads its configuration once, when CUDA is initialised; set at line %d inside the program it is likely too late to apply. Export it in the shell before Python starts.", n.Line))
	}
	if top == "activations" {
		add("zero-offload", "DeepSpeed ZeRO / CPU offload of model states", "ZeRO shards weights, gradients and optimizer states; these are activations, which it does not touch. Gradient checkpointing or a smaller micro-batch does.")
	}
	if ev.Framework == "vllm" && (ev.Variant == "vllm-startup" || ev.Kind != parser.KindServing) {
		add("raising-gpu-memory-utilization", "Raising gpu_memory_utilization", "Here vLLM needs less of the device, not more: the startup check failed because the requested share is not free, and a CUDA OOM inside the engine means its budget already leaves too little headroom.")
	}
	if has("leak") {
		add("gc-collect", "gc.collect() + empty_cache() every step", "gc.collect() frees only unreachable reference cycles; a leak is tensors still referenced, which neither call frees.")
	}
	if top == "visual-tokens" {
		if _, ok := f.Notice("thinking"); ok {
			why := "The thinking budget caps how many tokens are generated while thinking; this failure happens while encoding the image, before any token is generated."
			if s, ok := f.Setting("enable_thinking"); ok && strings.EqualFold(s.Value, "false") {
				why = fmt.Sprintf("Thinking is off here (enable_thinking=False, line %d), so the budget is inactive; and the failure happens while encoding the image, before any token is generated.", s.Line)
			}
			add("thinking-budget", "Lowering the thinking budget", why)
		}
	}
	if n, ok := f.Notice("use-fast-warning"); ok && gpuAllocator {
		add("use-fast-warning", "The `use_fast` image-processor warning", "Unrelated: it concerns which image-processor implementation runs (speed and tiny numeric differences), not GPU memory. Line "+fmt.Sprint(n.Line)+".")
	}
	return out
}

func atLeastKnown(v string, major, minor int) bool {
	yes, known := atLeast(v, major, minor)
	return yes && known
}

// captureFor says what to capture next when the evidence is thin.
func captureFor(fs []rules.Finding, f *rules.Facts) []string {
	if len(fs) > 0 && fs[0].Confidence >= 0.6 {
		return nil
	}
	var out []string
	for _, fd := range fs {
		if fd.Decide != "" {
			out = append(out, fd.Culprit+": "+fd.Decide)
		}
		if len(out) == 3 {
			break
		}
	}
	if len(f.Ev.Frames) == 0 {
		out = append(out, "the full traceback of the failure (the lines above the error message)")
	}
	if f.Ev.Kind == parser.KindCUDA || f.Ev.Kind == parser.KindHIP || f.Ev.Kind == parser.KindCUDARuntime {
		out = append(out, "a memory snapshot of the failing run:\n"+snapshotRecipe)
	}
	return out
}
