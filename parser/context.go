package parser

import (
	"strings"
)

// Patterns for log-wide context (research/formats.md §6, peers.md §11).
// versionPair is a library's name and a dotted version: "torch 2.4.1+cu121".
const versionPair = `(torch|transformers|vllm|accelerate|bitsandbytes|diffusers|jax|jaxlib|tensorflow|peft|deepspeed|trl|xformers)\s+v?(\d+\.\d+(?:\.\d+)?(?:[+.][\w.]+)?)`

var (
	// pip freeze / conda list / collect_env / transformers-cli env / banners
	reVersionPin = lazyRE(`(?:^|[\s(,'"])(torch|transformers|vllm|accelerate|bitsandbytes|diffusers|jax|jaxlib|tensorflow|peft|deepspeed|trl|numpy|flash[-_]attn|xformers|mlx|mlx-vlm|sglang)\s*==\s*v?(\d+\.\d+(?:\.\d+)?[\w.+-]*)`)
	// a whole line of name–version pairs: a script's banner "torch
	// 2.4.1+cu121, transformers 4.44.2", pip list's "transformers   4.44.2";
	// never prose ("downgraded from torch 2.11.0 to 2.9.1") nor pip's
	// "Found existing installation: transformers 4.57.1"
	reVersionList = lazyRE(`^(?:` + versionPair + `)(?:\s*,\s*(?:` + versionPair + `))*,?$`)
	reVersionPair = lazyRE(versionPair)
	reVersionSay  = lazyRE("(?i)(?:^|[\\s`\\-*])(pytorch|torch|transformers|vllm|accelerate|bitsandbytes|diffusers|jax|jaxlib|tensorflow|python|cuda)`?\\s+version\\s*[:=]?\\s*v?(\\d+\\.\\d+(?:\\.\\d+)?[\\w.+-]*)")
	reVLLMBanner  = lazyRE(`Initializing an? (?:V1 )?LLM engine \(v(\d+\.\d+[\w.+-]*)\)`)
	rePythonPath  = lazyRE(`/python(3\.\d+)/(?:site|dist)-packages/`)
	// model ids
	reHFCache    = lazyRE(`models--([\w.\-]+)--([\w.\-]+)`)
	reRemoteCode = lazyRE(`transformers_modules[/\\]([\w.\-]+)[/\\]([\w.\-]+)[/\\]`)
	reFromPre    = lazyRE(`from_pretrained\(\s*(?:[\w.]+\s*=\s*)?["']([\w.\-]+/[\w.\-]+)["']`)
	reModelFlag  = lazyRE(`(?:--model(?:[-_]name(?:[-_]or[-_]path)?|[-_]id|[-_]path)?[= ]|\bmodel(?:_id|_name(?:_or_path)?|_path)?\s*[=:]\s*["']|vllm serve )([\w.\-]+/[\w.\-]+(?:/[\w.\-]+)*)`)
	reServe      = lazyRE(`(?:vllm serve|--model[= ])\s*(/\S+)`)
	reAllocConf  = lazyRE(`\b(PYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF)\s*[=:]\s*["']?([\w:.,\[\]>]+)`)
	reEpoch      = lazyRE(`(?i)\bepoch[\s:=\[]*(\d+)`)
	reStep       = lazyRE(`(?i)\b(?:global[_ ])?(?:step|iter(?:ation)?)s?[\s:=\[#]*(\d+)`)
	reTqdm       = lazyRE(`\|\s*(\d+)/(\d+) \[`)
	reSmiMemory  = lazyRE(`(\d+)MiB\s*/\s*(\d+)MiB`)
	reSmiGPU     = lazyRE(`^\|\s+(\d+)\s+(.+?)\s+(?:On|Off)\s+\|`)
	reSmiProc    = lazyRE(`^\|\s+(\d+)\s+(?:\S+\s+\S+\s+)?(\d+)\s+(C\+G|C|G)\s+(.*?)\s+(\d+|N/A)(?:MiB)?\s*\|`)
	// TensorFlow's start-up report of a device: "Found device 0 with
	// properties:", then its "Total memory: 7.92GiB" and "Free memory:
	// 190.31MiB" (or "totalMemory: 10.92GiB freeMemory: 10.76GiB")
	reTFFoundDevice = lazyRE(`Found device (\d+) with properties`)
	reTFMemory      = lazyRE(`\b(Total memory|Free memory|totalMemory|freeMemory):\s*(\d+(?:\.\d+)?\s?[KMGT]i?B)`)
	// reFlagSetting is a serving engine's command-line flag with its value
	// after a space: "vllm serve M --gpu-memory-utilization 0.95".
	reFlagSetting = lazyRE(`(?:^|\s)--(max[-_]model[-_]len|gpu[-_]memory[-_]utilization|max[-_]num[-_]seqs|dtype)\s+([^\s"'=-][^\s"',)]*)`)
)

// A noticeCue names a non-fatal line worth remembering by a phrase in it.
type noticeCue struct{ id, text string }

// noticeCues name non-fatal lines worth remembering: each is context a rule
// or the won't-help list uses, never a failure.
func noticeCues() []noticeCue {
	return []noticeCue{
		{"nonfatal-oom-retry", "memory allocation failed with OOM"},
		{"nonfatal-oom-retry", "retrying with tiled"},             // ComfyUI: "Ran out of memory when regular decoding, retrying with tiled VAE decoding."
		{"possible-host-kill", "killed by SIGKILL by OOM killer"}, // Ray's list of potential causes of a worker's death
		{"vae-tiling-active", "[Tiled VAE]"},                      // the Tiled VAE extension (multidiffusion-upscaler) already tiles
		{"triton-out-of-resources", "out of resource: shared memory"},
		{"triton-out-of-resources", "OutOfResources"},
		{"tf-bfc-nonfatal", "freed_by_count"},
		{"pinned-memory-fallback", "of pinned memory: out of memory"}, // llama.cpp: "WARNING: failed to allocate 82120.00 MB of pinned memory: out of memory", then an ordinary buffer
		{"xla-rematerialization", "by rematerialization"},
		{"offloaded-to-cpu", "offloaded to the cpu"},
		{"partially-loaded", "loaded partially;"},
		{"comfyui", "got prompt"},
		{"comfyui", "Prompt executed in"},
		{"offloaded-to-disk", "offloaded to the disk"},
		{"bnb-dispatched-to-cpu", "Some modules are dispatched on the CPU or the disk"},
		{"use-fast-warning", "use_fast"},
		{"pad-token-id-warning", "Setting `pad_token_id` to `eos_token_id`"},
		{"torch-dtype-deprecated", "`torch_dtype` is deprecated"},
		{"eager-attention-fallback", "Falling back to the manual attention implementation"},
		{"eager-attention-fallback", "does not support `output_attentions=True`"},
		{"gradient-checkpointing-active", "is incompatible with gradient checkpointing"},
		{"expandable-segments-unsupported", "expandable_segments not supported"},
		{"alloc-conf-deprecated", "PYTORCH_CUDA_ALLOC_CONF is deprecated"},
		{"checkpoint-shards", "Loading checkpoint shards"},
		{"thinking", "thinking"},
		{"image-input", "processing image"},
		{"image-input", "encode_image"},
		{"image-input", "image slice encoded"},
		{"vae", "vae.decode"},
		{"vae", "vae: "},
		{"vae", "vae_decode"},
		{"vae", "VAEDecode"},
		{"vae", "VAE decode"},
		{"vae", "AutoencoderKL"},
		{"vae", "decode_first_stage"},
		{"eval-loop", "Running Evaluation"},
		{"eval-loop", "***** Running Evaluation"},
		{"cuda-graph-capture", "Capturing CUDA graph"},
		{"cuda-graph-capture", "capturing cudagraph"},
		{"cpu-offload", "cpu_offload"},
		{"no-grad", "torch.no_grad"},
		{"no-grad", "inference_mode"},
		{"jupyter", "ipykernel"},
	}
}

// settingNames are the settings settingsIn reads ("max_pixels=768*768",
// "'torch_dtype': 'float32'"), a longer name before a shorter one it
// ends in.
func settingNames() []string {
	return []string{"max_pixels", "min_pixels", "batch_size", "per_device_train_batch_size", "per_device_eval_batch_size", "gradient_accumulation_steps", "train_batch_size", "eval_batch_size", "max_new_tokens", "max_length", "max_seq_length", "max_model_len", "max-model-len", "max_num_seqs", "max-num-seqs", "gpu_memory_utilization", "gpu-memory-utilization", "enable_thinking", "thinking_budget", "torch_dtype", "dtype", "load_in_4bit", "load_in_8bit", "attn_implementation", "output_attentions", "device_map", "gradient_checkpointing", "num_workers", "num_beams", "hd_num", "cache_implementation", "low_cpu_mem_usage", "use_cache", "image_size", "resolution", "height", "width", "max_split_size_mb", "expandable_segments", "num_logits_to_keep", "logits_to_keep",
		// JAX's allocator switches, as exported: "export XLA_PYTHON_CLIENT_PREALLOCATE=false"
		"XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION", "XLA_PYTHON_CLIENT_ALLOCATOR",
		// llama.cpp's model and context lines: "llm_load_print_meta: n_layer = 32",
		// "llm_load_print_meta: model ftype = Q4_K - Medium"
		"n_layer", "n_head_kv", "n_embd_head_k", "n_ctx", "ftype"}
}

// modelKeys are the keys reModelFlag reads a model id after ("model_id=",
// "model_name_or_path: '…'").
func modelKeys() []string {
	return []string{"model", "model_id", "model_name", "model_name_or_path", "model_path"}
}

// assigns reports whether text assigns one of names: the name, an
// optional quote and spaces, then "=" or ":" — the shape settingsIn and
// reModelFlag need, tested on each "=" and ":" of the line without a
// regular expression, since most lines that hold a setting's name
// ("batch" in a frame, "height" in code) assign nothing.
func assigns(text string, names map[string]bool) bool { return assignsAfter(text, names, true) }

// assignsKey is assigns after any byte that is not a word's (the \b of
// reModelFlag's "\bmodel_id="): "cfg.model_name_or_path='…'" is one.
func assignsKey(text string, names map[string]bool) bool { return assignsAfter(text, names, false) }

// assignsAfter is assigns; strict takes a word to start only where
// settingsIn's does.
func assignsAfter(text string, names map[string]bool, strict bool) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '=' && text[i] != ':' {
			continue
		}
		j := i
		for j > 0 && isSpaceByte(text[j-1]) {
			j--
		}
		if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
			j--
		}
		k := j
		for k > 0 && (identByte(text[k-1]) || text[k-1] == '-') {
			k--
		}
		// the name, or any part of it after a dash ("--dtype=", "x-batch_size:"),
		// after what the patterns take as a word's start: the line's, a
		// space, "(", ",", "{" or a quote ("…ALLOC_CONF=expandable_segments:True"
		// assigns no setting)
		if strict && k > 0 && !isSpaceByte(text[k-1]) && strings.IndexByte(`(,{"'`, text[k-1]) < 0 {
			k = j - len(afterDash(text[k:j]))
		}
		for w := text[k:j]; w != ""; w = afterDash(w) {
			if names[w] {
				return true
			}
		}
	}
	return false
}

// afterDash is the part of w after its first dash, "" when it has none.
func afterDash(w string) string {
	if d := strings.IndexByte(w, '-'); d >= 0 {
		return w[d+1:]
	}
	return ""
}

// isSpaceByte is \s of the regexp syntax: ASCII space, tab, newline,
// form feed and carriage return.
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// nameSet is names as a set.
func nameSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// isProgress reports whether a line segment is a progress-bar redraw, which
// carries no context beyond its counter.
func isProgress(text string) bool {
	return strings.Contains(text, "it/s") || strings.Contains(text, "s/it") || strings.Contains(text, "%|")
}

// contextScanner collects Context facts line by line.
type contextScanner struct {
	cues      []noticeCue
	settings  map[string]bool // settingNames as a set
	modelKeys map[string]bool // modelKeys as a set
	ctx       *Context
	seen      map[string]bool
	smiIndex  *int
	tfDevice  *int // the device of TensorFlow's last "Found device N with properties:"
	tfLine    int  // that line
	inSummary bool
	done      map[uint64]bool // hashes of lines already scanned: a repeat adds no fact
}

func newContextScanner(ctx *Context) *contextScanner {
	return &contextScanner{ctx: ctx, seen: map[string]bool{}, done: map[uint64]bool{}, cues: noticeCues(), settings: nameSet(settingNames()), modelKeys: nameSet(modelKeys())}
}

// maxContextFacts bounds each Context list so that a hostile log of repeated
// facts cannot grow memory.
const maxContextFacts = 64

func (c *contextScanner) once(key string) bool {
	if c.seen[key] || len(c.seen) > 16*maxContextFacts {
		return false
	}
	c.seen[key] = true
	return true
}

// scan records the facts on one line (prefix already stripped).
func (c *contextScanner) scan(text string, no int) {
	if len(text) > 4096 {
		text = text[:4096]
	}
	trim := strings.TrimSpace(text)
	// TensorFlow's start-up report is read before the repeat check: two
	// devices of one model print the same "Total memory:" line.
	if strings.Contains(text, "with properties") {
		if m := reTFFoundDevice.FindStringSubmatch(text); m != nil {
			c.tfDevice, c.tfLine = intp(m[1]), no
		}
	}
	if c.tfDevice != nil && no-c.tfLine <= 8 && strings.Contains(text, "emory") || c.tfDevice != nil && no-c.tfLine <= 2 && strings.HasPrefix(trim, "name: ") {
		c.tfStartup(trim, no)
	}
	if strings.HasPrefix(trim, "|") {
		c.scanTable(trim, no)
	} else {
		c.inSummary = false
		// Every fact is recorded once, so a line seen before (a repeated
		// traceback, a retried request) has nothing new to give.
		h := fnv64(text)
		if c.done[h] {
			return
		}
		if len(c.done) < 4096 {
			c.done[h] = true
		}
	}
	// Each pattern runs only on lines holding its literal part.
	if strings.Contains(text, "==") {
		for _, m := range reVersionPin.FindAllStringSubmatch(text, 8) {
			c.addVersion(m[1], m[2], no)
		}
	}
	if strings.Contains(text, "ersion") {
		for _, m := range reVersionSay.FindAllStringSubmatch(text, 4) {
			c.addVersion(m[1], m[2], no)
		}
	}
	for _, name := range []string{"torch ", "transformers ", "vllm ", "accelerate ", "diffusers ", "jax ", "tensorflow ", "peft ", "bitsandbytes "} {
		if strings.Contains(text, name) {
			if t := strings.TrimSpace(text); reVersionList.MatchString(t) {
				for _, m := range reVersionPair.FindAllStringSubmatch(t, 8) {
					c.addVersion(m[1], m[2], no)
				}
			}
			break
		}
	}
	if strings.Contains(text, "LLM engine") {
		if m := reVLLMBanner.FindStringSubmatch(text); m != nil {
			c.addVersion("vllm", m[1], no)
		}
	}
	if strings.Contains(text, "/python3.") {
		if m := rePythonPath.FindStringSubmatch(text); m != nil {
			c.addVersion("python", m[1], no)
		}
	}
	if strings.Contains(text, "models--") {
		for _, m := range reHFCache.FindAllStringSubmatch(text, 4) {
			c.addModel(m[1]+"/"+m[2], "hf-cache", no)
		}
	}
	if strings.Contains(text, "transformers_modules") {
		for _, m := range reRemoteCode.FindAllStringSubmatch(text, 4) {
			c.addModel(remoteCodeID(m[1], m[2]), "remote-code", no)
		}
	}
	if strings.Contains(text, "from_pretrained") {
		for _, m := range reFromPre.FindAllStringSubmatch(text, 4) {
			c.addModel(m[1], "from_pretrained", no)
		}
	}
	if strings.Contains(text, "--model") || strings.Contains(text, "vllm serve") || strings.Contains(text, "model") && assignsKey(text, c.modelKeys) {
		for _, m := range reModelFlag.FindAllStringSubmatch(text, 4) {
			c.addModel(m[1], "command", no)
		}
	}
	if strings.Contains(text, "vllm serve") || strings.Contains(text, "--model") {
		if m := reServe.FindStringSubmatch(text); m != nil {
			parts := strings.Split(strings.TrimRight(m[1], "/"), "/")
			c.addModel(parts[len(parts)-1], "path", no)
		}
	}
	if strings.Contains(text, "environ") && strings.Contains(text, "ALLOC_CONF") && c.once("notice:alloc-conf-in-python") && len(c.ctx.Notices) < maxContextFacts {
		// os.environ["PYTORCH_CUDA_ALLOC_CONF"] = … inside the program: too
		// late once CUDA is initialised.
		c.ctx.Notices = append(c.ctx.Notices, Notice{ID: "alloc-conf-in-python", Line: no, Text: clip(trim, 300)})
	}
	if strings.Contains(text, "ALLOC_CONF") && !strings.Contains(text, "If reserved") && !strings.Contains(text, "to avoid fragmentation") && !strings.Contains(text, "is deprecated") {
		for _, m := range reAllocConf.FindAllStringSubmatch(text, 2) {
			if c.once("alloc:"+m[1]+m[2]) && len(c.ctx.AllocConf) < maxContextFacts {
				c.ctx.AllocConf = append(c.ctx.AllocConf, Setting{Name: m[1], Value: m[2], Line: no})
			}
		}
	}
	if assigns(text, c.settings) {
		for _, m := range settingsIn(text, c.settings, 8) {
			name := strings.ReplaceAll(m.name, "-", "_")
			if m.value == m.name || m.value == name {
				continue // "dtype=dtype": a variable passed through, not a value
			}
			if name == "dtype" && !strings.Contains(text, "from_pretrained") && !strings.Contains(text, "--dtype") && !strings.Contains(text, "LLM(") {
				continue // softmax(…, dtype=torch.float32) says nothing about the weights
			}
			if strings.HasPrefix(name, "XLA_") && !strings.Contains(text, "export ") && !strings.HasPrefix(trim, name) && !strings.Contains(text, "environ") {
				continue // an environment variable is set by a shell or os.environ, not named in a hint
			}
			if c.once("set:"+name+"="+m.value) && len(c.ctx.Settings) < maxContextFacts {
				c.ctx.Settings = append(c.ctx.Settings, Setting{Name: name, Value: m.value, Line: no})
			}
		}
	}
	if containsAny(text, []string{"--max", "--gpu", "--dtype"}) {
		for _, m := range reFlagSetting.FindAllStringSubmatch(text, 8) {
			name := strings.ReplaceAll(m[1], "-", "_")
			if c.once("set:"+name+"="+m[2]) && len(c.ctx.Settings) < maxContextFacts {
				c.ctx.Settings = append(c.ctx.Settings, Setting{Name: name, Value: m[2], Line: no})
			}
		}
	}
	c.notices(text, no)
}

// notices records the notice cues on a line.
func (c *contextScanner) notices(text string, no int) {
	for _, cue := range c.cues {
		if strings.Contains(text, cue.text) && c.once("notice:"+cue.id) && len(c.ctx.Notices) < maxContextFacts {
			c.ctx.Notices = append(c.ctx.Notices, Notice{ID: cue.id, Line: no, Text: clip(strings.TrimSpace(text), 300)})
		}
	}
}

// tfStartup reads TensorFlow's start-up device report into the device's
// GPU row: its "name: GeForce GTX 1080" line, and its memory rows —
// "Total memory: 7.92GiB" and "Free memory: 190.31MiB" on lines of their
// own (TensorFlow 1.x), "totalMemory: 10.92GiB freeMemory: 10.76GiB" on one
// (later 1.x). A device's first report stands: a second session's report
// shows what the first one took.
func (c *contextScanner) tfStartup(trim string, no int) {
	ms := reTFMemory.FindAllStringSubmatch(trim, 2)
	name := ""
	if strings.HasPrefix(trim, "name: ") {
		name, _, _ = strings.Cut(strings.TrimPrefix(trim, "name: "), " major:")
	}
	if ms == nil && name == "" {
		return
	}
	var g *GPU
	for i := range c.ctx.GPUs {
		if r := &c.ctx.GPUs[i]; r.Source == GPUSourceTFStartup && r.Index != nil && *r.Index == *c.tfDevice {
			g = r
		}
	}
	if g == nil {
		if len(c.ctx.GPUs) >= maxContextFacts {
			return
		}
		c.ctx.GPUs = append(c.ctx.GPUs, GPU{Index: c.tfDevice, Source: GPUSourceTFStartup, Line: no})
		g = &c.ctx.GPUs[len(c.ctx.GPUs)-1]
	} else if g.UsedBytes != nil {
		return // the device's first report stands
	}
	if name != "" {
		g.Name = strings.TrimSpace(name)
	}
	var free *int64
	for _, m := range ms {
		switch m[1] {
		case "Total memory", "totalMemory":
			g.TotalBytes = sizeOf(m[2])
		default:
			free = sizeOf(m[2])
			g.Line = no // the row's evidence is what was free
		}
	}
	if free != nil && g.TotalBytes != nil && *free <= *g.TotalBytes {
		used := *g.TotalBytes - *free
		g.UsedBytes = &used
	}
}

func (c *contextScanner) scanTable(trim string, no int) {
	if strings.Contains(trim, "memory summary") || (c.inSummary && len(c.ctx.MemSummary) < maxContextFacts) {
		c.inSummary = true
		c.ctx.MemSummary = append(c.ctx.MemSummary, Span{Line: no, Text: clip(trim, 200)})
		return
	}
	if m := reSmiGPU.FindStringSubmatch(trim); m != nil && !strings.Contains(trim, "MiB") {
		c.smiIndex = intp(m[1])
		if len(c.ctx.GPUs) < maxContextFacts {
			c.ctx.GPUs = append(c.ctx.GPUs, GPU{Index: c.smiIndex, Name: strings.TrimSpace(m[2]), Line: no})
		}
		return
	}
	if m := reSmiMemory.FindStringSubmatch(trim); m != nil && len(c.ctx.GPUs) > 0 {
		g := &c.ctx.GPUs[len(c.ctx.GPUs)-1]
		if g.TotalBytes == nil {
			g.UsedBytes, g.TotalBytes = sizeOf(m[1]+"MiB"), sizeOf(m[2]+"MiB")
		}
		return
	}
	if m := reSmiProc.FindStringSubmatch(trim); m != nil && len(c.ctx.GPUProcs) < maxContextFacts {
		pid := int64p(m[2])
		if pid == nil {
			return
		}
		c.ctx.GPUProcs = append(c.ctx.GPUProcs, GPUProcess{GPU: intp(m[1]), PID: *pid, Type: m[3], Name: strings.TrimSpace(m[4]), Bytes: sizeOf(m[5] + "MiB"), Line: no})
	}
}

func (c *contextScanner) addVersion(name, v string, no int) {
	name = strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	if name == "pytorch" {
		name = "torch"
	}
	v = strings.TrimRight(v, ".,;:)")
	if c.once("ver:"+name+"="+v) && len(c.ctx.Versions) < maxContextFacts {
		c.ctx.Versions = append(c.ctx.Versions, Version{Name: name, Version: v, Line: no})
	}
}

func (c *contextScanner) addModel(id, how string, no int) {
	if c.once("model:"+strings.ToLower(id)) && len(c.ctx.Models) < maxContextFacts {
		c.ctx.Models = append(c.ctx.Models, ModelRef{ID: id, How: how, Line: no})
	}
}

// remoteCodeID turns transformers' dynamic-module path back into a model id:
// "AIDC-AI/Ovis2_dot_5-2B" → "AIDC-AI/Ovis2.5-2B"; a commit-hash second part
// means the first is the bare model name.
func remoteCodeID(a, b string) string {
	unmangle := func(s string) string {
		return strings.NewReplacer("_dot_", ".", "_hyphen_", "-").Replace(s)
	}
	if len(b) >= 32 && strings.Trim(b, "0123456789abcdef") == "" {
		return unmangle(a)
	}
	return unmangle(a) + "/" + unmangle(b)
}

// progressIn reads an epoch or step counter from a line.
func progressIn(text string) (epoch, step *int64) {
	// The patterns are case-insensitive without a literal prefix: a line
	// holding none of their letters is not run through them.
	if containsAny(text, []string{"poch", "POCH"}) {
		if m := reEpoch.FindStringSubmatch(text); m != nil {
			epoch = int64p(m[1])
		}
	}
	if containsAny(text, []string{"tep", "TEP", "ter", "TER"}) {
		if m := reStep.FindStringSubmatch(text); m != nil {
			return epoch, int64p(m[1])
		}
	}
	if strings.Contains(text, " [") {
		if m := reTqdm.FindStringSubmatch(text); m != nil {
			step = int64p(m[1])
		}
	}
	return epoch, step
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// fnv64 is the 64-bit FNV-1a hash of s.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
