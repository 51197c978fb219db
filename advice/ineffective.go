package advice

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// ineffectiveFor lists the popular remedies that will not help this crash
// (research/peers.md §10): first those whose reason cites a line of the
// log (a setting or warning the user acted on), then at most
// MaxUsualWontHelp usual remedies for the likeliest culprit and this phase
// — the allocator's own hint first, then empty_cache, then the culprit's
// folklore — each with this crash's reason. Nothing here quotes text the
// log does not hold.
func ineffectiveFor(fs []rules.Finding, f *rules.Facts, env Env, lf *logFacts) []Ineffective {
	ev := f.Ev
	var cited []Ineffective
	usual := map[string]Ineffective{}
	cite := func(id, title, why string, fc *fact) {
		cited = append(cited, Ineffective{ID: id, Title: title, Why: why, Event: ev.ID, Line: fc.Line, Token: fc.Token})
	}
	add := func(id, title, why string) {
		usual[id] = Ineffective{ID: id, Title: title, Why: why, Event: ev.ID}
	}
	first, top := "", "" // the first culprit; top only when decided: a guess rules nothing out
	if len(fs) > 0 {
		first = fs[0].Culprit
	}
	if decided(fs) {
		top = first
	}
	gpuAllocator := ev.Kind == parser.KindCUDA || ev.Kind == parser.KindHIP || ev.Kind == parser.KindXPU || ev.Kind == parser.KindMPS && ev.Framework == "pytorch"
	inference := !f.TrainingLikely() && (f.Inference > 0 || ev.Phase == parser.PhaseGenerate || ev.Phase == parser.PhaseLoad || ev.Phase == parser.PhaseEval || first == "weights-too-large" || first == "visual-tokens" || first == "kv-cache")
	loading := ev.Phase == parser.PhaseLoad

	if gpuAllocator && (!f.UnallocKnown || f.Unallocated < f.Requested) {
		why := "PyTorch's allocator already returned every cached block to the driver and retried before raising this error; empty_cache() only hands memory to other processes."
		if f.UnallocKnown && (!f.FreeKnown || f.Unallocated < f.Requested-f.Free) {
			why += fmt.Sprintf(" Here only %s was cached and unused.", size(f.Unallocated))
		}
		add("empty-cache", emptyCacheCall(lf.device), why)
	}
	// The settings can only help when the idle cache — with what is free
	// beside it — would hold the request.
	idleAndFree := f.Unallocated
	if f.FreeKnown {
		idleAndFree += f.Free
	}
	if gpuAllocator && lf.gpuFamily() && f.UnallocKnown && f.Requested > 0 && idleAndFree < f.Requested && top != "fragmentation" && lf.expandable == nil {
		held := size(f.Unallocated)
		if f.FreeKnown {
			held += ", with " + size(f.Free) + " free,"
		}
		add("fragmentation-settings", "expandable_segments / max_split_size_mb", fmt.Sprintf("These only help when reserved-but-unallocated memory (with what is free) could hold the request. Here it is %s against a %s request: there is no fragmentation to undo.", held, size(f.Requested)))
	}
	// PyTorch's remedies are folklore only where PyTorch runs: nobody
	// tries gradient checkpointing or low_cpu_mem_usage on llama.cpp.
	onTorch := parser.OnPyTorch(ev)
	if inference && lf.checkpointing == nil && onTorch {
		add("checkpointing-for-inference", "Gradient checkpointing", "It trades compute for the activations saved for backward(); inference keeps none (and HF models only checkpoint in training mode), so it frees nothing here.")
	}
	if lf.padToken != nil && inference {
		cite("pad-token-id", "Setting pad_token_id", fmt.Sprintf("The pad_token_id warning at line %d is informational; the setting has no effect on memory.", lf.padToken.Line), lf.padToken)
	}
	if inference {
		switch ev.Phase {
		case parser.PhaseForward, parser.PhaseEval, parser.PhaseGenerate:
			if top != "no-grad-missing" {
				add("model-eval", "model.eval() alone", "eval() only switches dropout and batch-norm behaviour; it neither disables autograd nor frees memory.")
			}
		}
	}
	if top == "weights-too-large" && loading {
		if onTorch {
			why := "It limits host RAM while loading; the GPU still has to hold every weight."
			add("low-cpu-mem-usage", "low_cpu_mem_usage=True", why)
			if s, ok := f.Setting("low_cpu_mem_usage"); ok && truthy(s.Value) {
				cite("low-cpu-mem-usage", "low_cpu_mem_usage=True", fmt.Sprintf("Already on at line %d. %s", s.Line, why), &fact{Line: s.Line, Token: "low_cpu_mem_usage"})
				delete(usual, "low-cpu-mem-usage")
			}
		}
		if cs := lf.checkpointShards; cs != nil {
			cite("reduce-batch-size", "Reducing the batch size", fmt.Sprintf("The failure happens while loading the weights (line %d: Loading checkpoint shards), before any batch exists.", cs.Line), cs)
		} else {
			add("reduce-batch-size", "Reducing the batch size", "The failure happens while loading the weights, before any batch exists.")
		}
	} else if top == "weights-too-large" && fs[0].Confidence >= 0.85 {
		add("reduce-batch-size", "Reducing the batch size", "The weights alone exceed the device; no batch size makes them fit.")
	}
	if top == "kv-cache" && ev.Framework != "vllm" && ev.Framework != "ggml" && ev.Kind != parser.KindServing {
		add("static-cache", "cache_implementation=\"static\" to save memory", "A static cache preallocates max_cache_len for every layer up front: it saves time, not memory. The memory-saving caches are \"offloaded\" and \"quantized\".")
	}
	if top == "logits-upcast" {
		why := "Renamed to logits_to_keep in transformers 4.49; since the shim was removed the old name is swallowed by **kwargs and ignored, silently."
		if s, ok := f.Setting("num_logits_to_keep"); ok {
			cite("num-logits-to-keep", "num_logits_to_keep=1", why+fmt.Sprintf(" The log passes it at line %d.", s.Line), &fact{Line: s.Line, Token: "num_logits_to_keep"})
		} else if atLeastKnown(env.Transformers, 4, 50) {
			add("num-logits-to-keep", "num_logits_to_keep=1", why)
		}
	}
	if lf.expandableInPython != nil && gpuAllocator {
		n := lf.expandableInPython
		cite("alloc-conf-in-python", "Setting "+n.Token+" from Python", fmt.Sprintf("Line %d sets it inside the program. The allocator reads it once, when CUDA is initialised: set after the first CUDA call (often at import) it is ignored. Export it in the shell before Python starts.", n.Line), n)
	}
	if top == "activations" {
		add("zero-offload", "DeepSpeed ZeRO / CPU offload of model states", "ZeRO shards weights, gradients and optimizer states; these are activations, which it does not touch. Gradient checkpointing or a smaller micro-batch does.")
	}
	if ev.Framework == "vllm" && (ev.Variant == "vllm-startup" || ev.Kind != parser.KindServing) {
		add("raising-gpu-memory-utilization", "Raising gpu_memory_utilization", "Here vLLM needs less of the device, not more: the startup check failed because the requested share is not free, and a CUDA OOM inside the engine means its budget already leaves too little headroom.")
	}
	if top == "leak" {
		add("gc-collect", "gc.collect() + empty_cache() every step", "gc.collect() frees only unreachable reference cycles; a leak is tensors still referenced, which neither call frees.")
	}
	if top == "visual-tokens" {
		if n, ok := f.Notice("thinking"); ok {
			why := "The thinking budget caps how many tokens are generated while thinking; this failure happens while encoding the image, before any token is generated."
			fc := &fact{Line: n.Line, Token: "thinking"}
			if s, ok := f.Setting("enable_thinking"); ok && strings.EqualFold(s.Value, "false") {
				why = fmt.Sprintf("Thinking is off here (enable_thinking=False, line %d), so the budget is inactive; and the failure happens while encoding the image, before any token is generated.", s.Line)
				fc = &fact{Line: s.Line, Token: "enable_thinking"}
			}
			cite("thinking-budget", "Lowering the thinking budget", why, fc)
		}
	}
	if n, ok := f.Notice("use-fast-warning"); ok && gpuAllocator && (top == "visual-tokens" || lf.device == "cuda") {
		cite("use-fast-warning", "The `use_fast` image-processor warning", fmt.Sprintf("Unrelated: the warning at line %d concerns which image-processor implementation runs (speed and tiny numeric differences), not GPU memory.", n.Line), &fact{Line: n.Line, Token: "use_fast"})
	}
	return append(cited, usualFirst(usual, top, ev)...)
}

// usualFirst orders the usual remedies (the allocator's own hint first,
// then empty_cache, then the culprit's folklore, then the rest) and keeps
// MaxUsualWontHelp of those relevant to the culprit.
func usualFirst(usual map[string]Ineffective, top string, ev *parser.Event) []Ineffective {
	order := []string{}
	if ev.Hint == "expandable_segments" || ev.Hint == "max_split_size_mb" {
		order = append(order, "fragmentation-settings")
	}
	order = append(order, "empty-cache")
	order = append(order, culpritWontHelp()[top]...)
	relevant := map[string]bool{}
	for _, id := range order {
		relevant[id] = true
	}
	for _, id := range []string{"raising-gpu-memory-utilization", "reduce-batch-size", "low-cpu-mem-usage", "checkpointing-for-inference", "model-eval", "fragmentation-settings"} {
		if !relevant[id] {
			order = append(order, id)
		}
	}
	var out []Ineffective
	seen := map[string]bool{}
	for _, id := range order {
		if x, ok := usual[id]; ok && !seen[id] && len(out) < MaxUsualWontHelp {
			seen[id] = true
			out = append(out, x)
		}
	}
	return out
}

// emptyCacheCall spells empty_cache for the device's module.
func emptyCacheCall(device string) string {
	switch device {
	case "xpu":
		return "torch.xpu.empty_cache()"
	case "mps":
		return "torch.mps.empty_cache()"
	}
	return "torch.cuda.empty_cache()"
}

func atLeastKnown(v string, major, minor int) bool {
	yes, known := atLeast(v, major, minor)
	return yes && known
}

// captureFor says what to capture next when the log does not decide the
// cause: the likeliest finding's own capture step, the traceback when the
// log has none, and a memory snapshot on CUDA.
func captureFor(fs []rules.Finding, f *rules.Facts, decided bool, lf *logFacts) []string {
	if decided {
		return nil
	}
	var out []string
	if f.Ev.RequestOverflow {
		out = append(out, "the shapes and dtypes of the failing operation's inputs (print each tensor's .shape and .dtype just before the failing line)")
	}
	for _, fd := range fs {
		if fd.Capture != "" {
			out = append(out, fd.Capture)
			break
		}
	}
	if _, compute := f.FindAfter(parser.CueComputeBuffer()); compute && f.Ev.Framework == "ggml" {
		out = append(out, "llama.cpp's llama_context lines (n_ctx, n_batch, n_ubatch, flash_attn) and its command line: a compute buffer grows with the context × the micro-batch (-c × -ub, less with -fa), once per pipeline copy across GPUs (n_copies, GGML_SCHED_MAX_COPIES)")
	} else if len(f.Ev.Frames) == 0 {
		out = append(out, "the lines above the error message (the full traceback, or a native runtime's load and context lines)")
	}
	if !f.Ev.RequestOverflow && parser.OnPyTorch(f.Ev) && (f.Ev.Kind == parser.KindCUDA || f.Ev.Kind == parser.KindHIP || f.Ev.Kind == parser.KindCUDARuntime) {
		what := "a memory snapshot of the failing run"
		if lf.memSummary != nil {
			what += " (the log's memory summary gives totals; the snapshot adds the stack of every allocation)"
		}
		out = append(out, what+":\n"+snapshotRecipe)
	}
	return out
}
