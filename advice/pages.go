package advice

import (
	"sort"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/rules"
)

// A Page is what `oomdoc explain ID` prints for a culprit, a fix or a
// remedy that does not help.
type Page struct {
	ID        string
	Kind      string // "culprit", "fix", "won't help"
	Title     string
	Body      string   // what it is / why it works
	Recognise string   // culprits: how to recognise it
	Snippet   string   // fixes
	Caveat    string   // fixes
	Fixes     []string // culprits: fix ids, best first; fixes: the culprits they address
	WontHelp  []string // culprits: remedies that do not help
	Links     []string
}

// wontHelpCatalog describes every remedy the report can rule out, in
// general terms; the report gives the crash-specific reason.
func wontHelpCatalog() []Page {
	p := func(id, title, body string, links ...string) Page {
		return Page{ID: id, Kind: "won't help", Title: title, Body: body, Links: links}
	}
	return []Page{
		p("empty-cache", "torch.cuda.empty_cache()", "The caching allocator frees all unused cached blocks and retries before it raises an out-of-memory error, so calling empty_cache() afterwards frees nothing PyTorch could use. It only returns memory to other processes.", "https://pytorch.org/docs/stable/notes/cuda.html#memory-management"),
		p("fragmentation-settings", "expandable_segments / max_split_size_mb when little is cached", "Both settings fight fragmentation: free memory inside PyTorch's reserved segments that no request can use. When reserved-but-unallocated memory is smaller than the request, there is nothing for them to recover.", "https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"),
		p("checkpointing-for-inference", "Gradient checkpointing for inference", "Checkpointing avoids storing activations for backward(). Inference under no_grad stores none, and Hugging Face models only checkpoint in training mode.", "https://pytorch.org/docs/stable/checkpoint.html"),
		p("pad-token-id", "Setting pad_token_id", "The \"Setting `pad_token_id` to `eos_token_id`\" message is a logging warning; the value has no effect on memory."),
		p("model-eval", "model.eval() alone", "eval() changes dropout and batch-norm behaviour only. Autograd stays on until torch.no_grad() or torch.inference_mode().", "https://pytorch.org/docs/stable/generated/torch.autograd.grad_mode.inference_mode.html"),
		p("low-cpu-mem-usage", "low_cpu_mem_usage=True for a GPU OOM", "It bounds host RAM during loading to about one copy of the model; the GPU must still hold every weight it is given."),
		p("reduce-batch-size", "Reducing the batch size when the weights do not fit", "The batch changes activation memory only. When the weights alone exceed the device (or the failure is during loading), a batch of 1 fails the same way."),
		p("static-cache", "cache_implementation=\"static\" to save memory", "A static cache preallocates max_cache_len for every layer: it exists for speed (torch.compile), not memory. The memory-saving caches are \"offloaded\" and \"quantized\".", "https://huggingface.co/docs/transformers/kv_cache"),
		p("num-logits-to-keep", "num_logits_to_keep on current transformers", "The argument was renamed logits_to_keep (4.49); after the deprecation shim was removed the old name is ignored without a warning."),
		p("zero-offload", "DeepSpeed ZeRO / CPU offload for activation OOMs", "ZeRO partitions model states (weights, gradients, optimizer); activations are untouched. Activation checkpointing or smaller micro-batches address them.", "https://github.com/deepspeedai/DeepSpeed/issues/2302"),
		p("raising-gpu-memory-utilization", "Raising vLLM's gpu_memory_utilization for every error", "Right for \"No available memory for the cache blocks\" and the max-seq-len errors; wrong when the startup check finds too little free memory or when a CUDA OOM happens inside the engine, where less is needed.", "https://docs.vllm.ai/en/latest/configuration/conserving_memory/"),
		p("gc-collect", "gc.collect() + empty_cache() every step", "gc.collect() frees unreachable reference cycles only; leaked tensors are still referenced."),
		p("thinking-budget", "Lowering a reasoning model's thinking budget", "The budget limits generated thinking tokens. When thinking is off it is inactive, and it cannot affect failures before generation (image encoding, prefill)."),
		p("alloc-conf-in-python", "Setting the allocator's env var from inside Python", "PyTorch parses PYTORCH_CUDA_ALLOC_CONF (PYTORCH_ALLOC_CONF) when CUDA is initialised; os.environ changes after that — after the first CUDA call, often after import — are ignored. Export it before Python starts.", "https://github.com/pytorch/pytorch/issues/104801"),
		p("use-fast-warning", "The `use_fast` image-processor warning", "It selects the fast or slow image-processor implementation; it does not change GPU memory."),
	}
}

// culpritLinks returns the primary documentation for each culprit.
func culpritLinks() map[string][]string {
	return map[string][]string{
		"fragmentation":         {"https://pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"},
		"weights-too-large":     {"https://huggingface.co/docs/transformers/quantization/bitsandbytes", "https://huggingface.co/docs/accelerate/usage_guides/big_modeling"},
		"weights-wrong-dtype":   {"https://huggingface.co/docs/transformers/main_classes/model#model-instantiation-dtype"},
		"kv-cache":              {"https://huggingface.co/docs/transformers/kv_cache"},
		"attention-matrix":      {"https://huggingface.co/docs/transformers/attention_interface"},
		"logits-upcast":         {"https://github.com/huggingface/transformers/pull/31292"},
		"activations":           {"https://huggingface.co/docs/transformers/perf_train_gpu_one"},
		"optimizer-state":       {"https://huggingface.co/docs/bitsandbytes/optimizers", "https://huggingface.co/docs/peft/index"},
		"other-process":         {"https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory"},
		"leak":                  {"https://pytorch.org/docs/stable/notes/faq.html#my-model-reports-cuda-runtime-error-2-out-of-memory", "https://pytorch.org/docs/stable/torch_cuda_memory.html"},
		"no-grad-missing":       {"https://pytorch.org/docs/stable/generated/torch.no_grad.html"},
		"serving-memory-budget": {"https://docs.vllm.ai/en/latest/configuration/conserving_memory/"},
		"vae-decode":            {"https://huggingface.co/docs/diffusers/optimization/memory"},
		"host-ram":              {"https://pytorch.org/docs/stable/data.html#multi-process-data-loading"},
		"mps-limit":             {"https://pytorch.org/docs/stable/notes/mps.html"},
		"checkpoint-to-gpu":     {"https://pytorch.org/docs/stable/generated/torch.load.html"},
		"device-imbalance":      {"https://pytorch.org/docs/stable/notes/cuda.html#use-nn-parallel-distributeddataparallel-instead-of-multiprocessing-or-nn-dataparallel"},
		"library-workspace":     {"https://pytorch.org/docs/stable/notes/cuda.html"},
		"visual-tokens":         {"https://huggingface.co/docs/transformers/model_doc/qwen2_vl"},
		"batch-too-large":       {"https://huggingface.co/docs/accelerate/usage_guides/memory"},
		"allocation-limit":      {"https://github.com/intel/intel-extension-for-pytorch/issues/325"},
	}
}

// culpritWontHelp lists, per culprit, the remedies its page warns about.
func culpritWontHelp() map[string][]string {
	return map[string][]string{
		"weights-too-large":     {"reduce-batch-size", "checkpointing-for-inference", "empty-cache", "low-cpu-mem-usage"},
		"weights-wrong-dtype":   {"reduce-batch-size", "empty-cache"},
		"kv-cache":              {"static-cache", "checkpointing-for-inference", "empty-cache"},
		"visual-tokens":         {"empty-cache", "thinking-budget", "use-fast-warning"},
		"attention-matrix":      {"empty-cache", "checkpointing-for-inference"},
		"logits-upcast":         {"num-logits-to-keep", "empty-cache"},
		"activations":           {"zero-offload", "empty-cache"},
		"fragmentation":         {"empty-cache"},
		"leak":                  {"gc-collect", "empty-cache"},
		"no-grad-missing":       {"model-eval"},
		"serving-memory-budget": {"raising-gpu-memory-utilization"},
	}
}

// Pages returns every explain page: each culprit, each fix, each remedy
// that does not help, sorted by id within kind.
func Pages() []Page {
	fixPages := map[string]*Page{}
	var culprits []Page
	for _, r := range rules.All() {
		cp := Page{ID: r.ID, Kind: "culprit", Title: r.Title, Body: r.Doc, Recognise: r.Recognise, Links: culpritLinks()[r.ID], WontHelp: culpritWontHelp()[r.ID]}
		for _, fx := range sampleFixes(r.ID) {
			cp.Fixes = append(cp.Fixes, fx.ID)
			p := fixPages[fx.ID]
			if p == nil {
				p = &Page{ID: fx.ID, Kind: "fix", Title: fx.Title, Body: fx.Why, Snippet: fx.Snippet, Caveat: fx.Caveat}
				fixPages[fx.ID] = p
			}
			p.Fixes = append(p.Fixes, r.ID)
		}
		culprits = append(culprits, cp)
	}
	out := culprits
	ids := make([]string, 0, len(fixPages))
	for id := range fixPages {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		out = append(out, *fixPages[id])
	}
	warned := map[string][]string{}
	for _, r := range rules.All() {
		for _, id := range culpritWontHelp()[r.ID] {
			warned[id] = append(warned[id], r.ID)
		}
	}
	for _, p := range wontHelpCatalog() {
		p.Fixes = warned[p.ID]
		out = append(out, p)
	}
	return out
}

// sampleFixes runs a culprit's fix builder on empty crashes of several
// kinds, to list every fix it can give in general form (no figures).
func sampleFixes(culprit string) []Fix {
	seen := map[string]bool{}
	var out []Fix
	for _, fx := range everyFixForm(culprit) {
		if !seen[fx.ID] {
			seen[fx.ID] = true
			out = append(out, fx)
		}
	}
	return out
}

// everyFixForm is every fix a culprit's builder gives on empty crashes
// of each kind and variant, duplicates included.
func everyFixForm(culprit string) []Fix {
	samples := []parser.Event{
		{Kind: parser.KindCUDA, Device: &parser.Device{Type: "cuda"}},
		{Kind: parser.KindXLA},
		{Kind: parser.KindTF, Framework: "tensorflow"},
		{Kind: parser.KindServing, Framework: "vllm", Variant: "vllm-startup"},
		{Kind: parser.KindServing, Framework: "vllm", Variant: "vllm-v1"},
		{Kind: parser.KindServing, Framework: "tgi", Variant: "tgi-warmup"},
		{Kind: parser.KindServing, Variant: "cache-budget-too-small"},
		{Kind: parser.KindHostKill, Signal: "Bus error"},
		{Kind: parser.KindCUDARuntime, Framework: "ggml"},
		{Kind: parser.KindCUDARuntime, Framework: "ctranslate2"},
		{Kind: parser.KindCPU, Framework: "windows", Variant: "windows-commit-limit"},
		{Kind: parser.KindHostKill, Framework: "yarn", Variant: "yarn-virtual-memory-limit"},
		{Kind: parser.KindCUDA, Framework: "vllm"},
		{Kind: parser.KindCUDA, Framework: "comfyui"},
		{Kind: parser.KindMPS, Framework: "mlx"},
		{Kind: parser.KindGeneric, Framework: "flashinfer", Variant: parser.VariantFlashInferWorkspace},
		{Kind: parser.KindGeneric, Framework: "deepspeed", Variant: parser.VariantDeepSpeedWorkspace},
	}
	cat := models.Load()
	var out []Fix
	// Without a model first, so that pages show the general form; a
	// catalogued model adds the fixes that need one (a smaller sibling).
	for _, refs := range [][]parser.ModelRef{nil, {{ID: "llava-hf/llava-1.5-13b-hf"}}} {
		for _, ev := range samples {
			res := &parser.Result{Events: []parser.Event{ev}, Context: parser.Context{Models: refs}}
			if ev.Framework == "comfyui" {
				res.Context.Notices = []parser.Notice{{ID: "comfyui"}}
			}
			f := rules.NewFacts(rules.Input{Result: res, Catalog: cat}, 0)
			f.Capacity = 12 << 30
			for _, variant := range []string{"", rules.VariantStaticCache, rules.VariantEvalAccumulate} {
				c := &fixContext{fd: rules.Finding{Culprit: culprit, Variant: variant}, f: f, cat: cat, lf: &logFacts{soleProcess: &fact{}, cudaGraphs: &fact{}, vaeTiling: &fact{}}}
				out = append(out, fixesFor(c)...)
			}
		}
	}
	return out
}

// Explain returns the page for an id.
func Explain(id string) (Page, bool) {
	for _, p := range Pages() {
		if p.ID == id {
			return p, true
		}
	}
	return Page{}, false
}
