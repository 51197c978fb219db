package advice

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/oomdoc/oomdoc/parser"
)

// A fact is something the log shows is already in place, with the line
// that says it and the word on that line the claim is about.
type fact struct {
	Line  int
	Token string // a word the line holds ("expandable_segments", "load_in_4bit")
	Text  string // what is in place, in words
}

// logFacts are what the log shows the user already does: allocator
// options, gradient checkpointing, quantisation, no-grad, the attention
// kernel, the device family. A fix that one of them rules out is never
// offered; the report says what the log shows instead.
type logFacts struct {
	gpuShareHigh          *fact // gpu_memory_utilization already at 0.95 or more
	expandable            *fact // expandable_segments:True set before start
	expandableInPython    *fact // set with os.environ inside the program
	expandableUnsupported *fact // the platform ignores it
	maxSplit              *fact
	allocConfDeprecated   *fact
	checkpointing         *fact
	fourBit, eightBit     *fact
	noGrad                *fact
	evalLoop              *fact // HF Trainer's evaluation loop: already under no_grad
	fusedAttention        *fact // attn_implementation sdpa / flash
	halfDType             *fact // weights asked for in 16-bit
	quantizedCache        *fact
	offloadedCache        *fact
	cpuOffload            *fact // accelerate / DeepSpeed already offload to the CPU
	vaeTiling             *fact // the VAE already decodes in tiles
	checkpointShards      *fact // transformers is loading the weights
	cudaGraphs            *fact // vLLM capturing CUDA graphs
	padToken              *fact // the pad_token_id warning is in the log
	torchDTypeDeprecated  *fact // transformers ≥ 4.56 warned about torch_dtype=
	notebook              *fact
	soleProcess           *fact // the only process on the device is this one
	modelClass            *fact // the class the log loads the model with
	visionFrames          *fact // the traceback runs through a vision-language model's code
	memSummary            *fact
	device                string // "cuda", "rocm", "xpu", "mps", "cpu", … of the failure
	framework             string // the failure's framework ("pytorch", "jax", …)
}

var (
	// reEnvInPython is an assignment to the allocator's variable from
	// Python, never the OOM message's own "try setting PYTORCH_…" hint.
	reEnvInPython = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:os\.environ(?:\.setdefault\(|\[)|os\.putenv\(|%env |%set_env )\s*["']?(PYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF)`)
	})
	reModelClass = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([A-Z][A-Za-z0-9_]*(?:For[A-Z][A-Za-z0-9_]*|Model))\.from_pretrained\(`)
	})
)

// isHintText reports whether a line is PyTorch's own advice in the OOM
// message or its documentation link: such a line never shows what the
// user did.
func isHintText(s string) bool {
	for _, h := range []string{"to avoid fragmentation", "If reserved but unallocated", "cuda.html#environment-variables", "Memory Management", "See documentation for"} {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// eventLines are the lines that hold a failure message.
func eventLines(res *parser.Result) map[int]bool {
	out := map[int]bool{}
	for _, ev := range res.Events {
		out[ev.Line] = true
	}
	return out
}

func truthy(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"' `)) {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}

// readLogFacts reads what is in place from the parsed context and the
// failing event.
func readLogFacts(res *parser.Result, ev *parser.Event) logFacts {
	var lf logFacts
	if ev != nil {
		lf.framework = ev.Framework
	}
	if ev != nil && ev.Device != nil {
		lf.device = ev.Device.Type
	}
	if ev != nil && lf.device == "" {
		switch ev.Kind {
		case parser.KindXPU:
			lf.device = "xpu"
		case parser.KindMPS:
			lf.device = "mps"
		case parser.KindHIP:
			lf.device = "rocm"
		}
	}
	skip := eventLines(res)
	ctx := &res.Context
	for _, s := range ctx.AllocConf {
		if skip[s.Line] {
			continue
		}
		for _, opt := range strings.Split(s.Value, ",") {
			k, v, _ := strings.Cut(opt, ":")
			switch strings.TrimSpace(k) {
			case "expandable_segments":
				if truthy(v) && lf.expandable == nil {
					lf.expandable = &fact{Line: s.Line, Token: "expandable_segments", Text: s.Name + "=" + s.Value}
				}
			case "max_split_size_mb":
				if lf.maxSplit == nil {
					lf.maxSplit = &fact{Line: s.Line, Token: "max_split_size_mb", Text: s.Name + "=" + s.Value}
				}
			}
		}
	}
	for _, s := range ctx.Settings {
		if skip[s.Line] {
			continue
		}
		set := func(p **fact, token, text string) {
			if *p == nil {
				*p = &fact{Line: s.Line, Token: token, Text: text}
			}
		}
		v := strings.Trim(s.Value, `"'`)
		switch s.Name {
		case "gpu_memory_utilization":
			if u, err := strconv.ParseFloat(v, 64); err == nil && u >= 0.95 {
				set(&lf.gpuShareHigh, "utilization", "gpu_memory_utilization "+v) // either spelling holds the word
			}
		case "gradient_checkpointing":
			if truthy(v) {
				set(&lf.checkpointing, "gradient_checkpointing", "gradient_checkpointing="+v)
			}
		case "load_in_4bit":
			if truthy(v) {
				set(&lf.fourBit, "load_in_4bit", "load_in_4bit="+v)
			}
		case "load_in_8bit":
			if truthy(v) {
				set(&lf.eightBit, "load_in_8bit", "load_in_8bit="+v)
			}
		case "attn_implementation":
			if strings.Contains(v, "sdpa") || strings.Contains(v, "flash") {
				set(&lf.fusedAttention, "attn_implementation", "attn_implementation=\""+v+"\"")
			}
		case "torch_dtype", "dtype":
			if strings.Contains(v, "float16") || strings.Contains(v, "bfloat16") || strings.Contains(v, "half") {
				set(&lf.halfDType, s.Name, s.Name+"="+v)
			}
		case "cache_implementation":
			if strings.Contains(v, "quantized") {
				set(&lf.quantizedCache, "cache_implementation", "cache_implementation=\""+v+"\"")
			}
			if strings.Contains(v, "offloaded") {
				set(&lf.offloadedCache, "cache_implementation", "cache_implementation=\""+v+"\"")
			}
		case "expandable_segments":
			if truthy(v) {
				set(&lf.expandable, "expandable_segments", "expandable_segments:"+v)
			}
		}
	}
	for _, n := range ctx.Notices {
		if skip[n.Line] && n.ID != "jupyter" {
			continue
		}
		lf.readNotice(n)
	}
	if len(ctx.MemSummary) > 0 {
		lf.memSummary = &fact{Line: ctx.MemSummary[0].Line, Token: "memory summary", Text: "torch.cuda.memory_summary()"}
	}
	if ev != nil {
		lf.readFrames(ev)
		lf.readSoleProcess(res, ev)
	}
	return lf
}

// noticeReaders says, for every notice id the parser emits, who reads it:
// "advice" (readNotice below), "rules" (a culprit's evidence) or "render"
// (the no-failure notes). A notice nobody reads is a test failure.
func noticeReaders() map[string]string {
	return map[string]string{
		"nonfatal-oom-retry": "render", "nonfatal-oom-skipped": "render", "triton-out-of-resources": "render", "tf-bfc-nonfatal": "render", "xla-rematerialization": "render",
		"offloaded-to-cpu": "render", "offloaded-to-disk": "render", "bnb-dispatched-to-cpu": "render", "partially-loaded": "rules",
		"comfyui": "advice", "use-fast-warning": "advice", "pad-token-id-warning": "advice", "torch-dtype-deprecated": "advice",
		"eager-attention-fallback": "rules", "gradient-checkpointing-active": "advice", "expandable-segments-unsupported": "advice",
		"alloc-conf-deprecated": "advice", "checkpoint-shards": "advice", "thinking": "advice", "image-input": "rules",
		"vae": "rules", "eval-loop": "advice", "cuda-graph-capture": "advice", "cpu-offload": "advice", "no-grad": "advice",
		"jupyter": "advice", "alloc-conf-in-python": "advice", "possible-host-kill": "render", "vae-tiling-active": "advice",
		"pinned-memory-fallback": "render",
	}
}

// readNotice records what one notice shows is in place.
func (lf *logFacts) readNotice(n parser.Notice) {
	at := func(p **fact, token, text string) {
		if *p == nil && strings.Contains(n.Text, token) {
			*p = &fact{Line: n.Line, Token: token, Text: text}
		}
	}
	switch n.ID {
	case "gradient-checkpointing-active":
		at(&lf.checkpointing, "gradient checkpointing", "gradient checkpointing is active")
	case "expandable-segments-unsupported":
		at(&lf.expandableUnsupported, "expandable_segments", "expandable_segments is not supported on this platform")
	case "alloc-conf-deprecated":
		at(&lf.allocConfDeprecated, "PYTORCH_CUDA_ALLOC_CONF", "torch warns that PYTORCH_CUDA_ALLOC_CONF is deprecated")
	case "alloc-conf-in-python":
		if isHintText(n.Text) {
			return // the OOM message's own "try setting …" hint
		}
		if m := reEnvInPython().FindStringSubmatch(n.Text); m != nil && lf.expandableInPython == nil {
			lf.expandableInPython = &fact{Line: n.Line, Token: m[1], Text: "the program sets " + m[1] + " from Python"}
		}
	case "vae-tiling-active":
		at(&lf.vaeTiling, "[Tiled VAE]", "the Tiled VAE extension already decodes in tiles")
	case "checkpoint-shards":
		at(&lf.checkpointShards, "Loading checkpoint shards", "transformers is loading the checkpoint")
	case "cuda-graph-capture":
		if strings.Contains(n.Text, "Capturing CUDA graph") {
			at(&lf.cudaGraphs, "Capturing CUDA graph", "vLLM captures CUDA graphs")
		} else {
			at(&lf.cudaGraphs, "capturing cudagraph", "vLLM captures CUDA graphs")
		}
	case "pad-token-id-warning":
		at(&lf.padToken, "pad_token_id", "the pad_token_id warning")
	case "torch-dtype-deprecated":
		at(&lf.torchDTypeDeprecated, "torch_dtype", "transformers warns that torch_dtype is deprecated")
	case "no-grad":
		if strings.Contains(n.Text, "inference_mode") {
			at(&lf.noGrad, "inference_mode", "the code runs under torch.inference_mode()")
		} else {
			at(&lf.noGrad, "no_grad", "the code runs under torch.no_grad()")
		}
	case "eval-loop":
		at(&lf.evalLoop, "Running Evaluation", "the Trainer's evaluation loop, which runs under torch.no_grad()")
	case "jupyter":
		at(&lf.notebook, "ipykernel", "a Jupyter kernel")
	case "cpu-offload":
		at(&lf.cpuOffload, "cpu_offload", "part of the model is already offloaded to the CPU")
	}
}

// readFrames reads the model class and bitsandbytes layers from the
// traceback.
func (lf *logFacts) readFrames(ev *parser.Event) {
	for i := len(ev.Frames) - 1; i >= 0; i-- {
		fr := ev.Frames[i]
		file := strings.ToLower(fr.File)
		for _, w := range []string{"_vl", "llava", "mllama", "/vlm/", "vision", "visual"} {
			if strings.Contains(file, w) && lf.visionFrames == nil && fr.LogLine > 0 {
				lf.visionFrames = &fact{Line: fr.LogLine, Token: w, Text: fr.File}
			}
		}
		if m := reModelClass().FindStringSubmatch(fr.Code); m != nil && lf.modelClass == nil {
			lf.modelClass = &fact{Line: fr.LogLine + 1, Token: m[1], Text: m[1]}
		}
		if strings.Contains(fr.File, "bitsandbytes") && lf.fourBit == nil && (strings.Contains(fr.Code, "4bit") || strings.Contains(fr.Function, "4bit") || strings.Contains(fr.Code, "Params4bit")) {
			tok := "4bit"
			lf.fourBit = &fact{Line: fr.LogLine + 1, Token: tok, Text: "the traceback runs through bitsandbytes' 4-bit layers"}
			if !strings.Contains(fr.Code, tok) {
				lf.fourBit.Line = fr.LogLine
			}
		}
	}
	for _, cl := range ev.ContextLines {
		if !strings.Contains(cl.Text, ".py") {
			continue // only file paths say whose code ran
		}
		for _, w := range []string{"_vl", "llava", "mllama", "/vlm/", "vision", "visual"} {
			if strings.Contains(strings.ToLower(cl.Text), w) && lf.visionFrames == nil {
				lf.visionFrames = &fact{Line: cl.Line, Token: w, Text: cl.Text}
			}
		}
	}
	for i := len(ev.ContextLines) - 1; i >= 0 && lf.modelClass == nil; i-- {
		if m := reModelClass().FindStringSubmatch(ev.ContextLines[i].Text); m != nil {
			lf.modelClass = &fact{Line: ev.ContextLines[i].Line, Token: m[1], Text: m[1]}
		}
	}
}

// readSoleProcess notices when the memory outside PyTorch is this
// process's own: the message lists no other process and the process's
// use accounts for all of the device that is not free.
func (lf *logFacts) readSoleProcess(res *parser.Result, ev *parser.Event) {
	if len(ev.OtherProcesses) > 0 || ev.ProcessInUseBytes == nil || ev.TotalBytes == nil || ev.FreeBytes == nil {
		return
	}
	for _, p := range res.Context.GPUProcs {
		if ev.PID == nil || p.PID != *ev.PID {
			return // nvidia-smi lists a process the message does not name
		}
	}
	used := *ev.TotalBytes - *ev.FreeBytes
	diff := used - *ev.ProcessInUseBytes
	if diff < 0 {
		diff = -diff
	}
	if used <= 0 || diff > used/100 {
		return
	}
	lf.soleProcess = &fact{Line: ev.Line, Token: "memory in use", Text: fmt.Sprintf("this process holds all %s in use (%s total − %s free)", size(*ev.ProcessInUseBytes), size(*ev.TotalBytes), size(*ev.FreeBytes))}
}
