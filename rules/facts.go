package rules

import (
	"strings"

	"github.com/oomdoc/oomdoc/models"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

const (
	kib = int64(1) << 10
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// Facts are what every rule needs about one event, derived once: the
// figures with their gaps filled only from other log lines or hints, the
// model, and the text of the frames and nearby lines to search for cues.
type Facts struct {
	Ev    *parser.Event
	Res   *parser.Result
	Input string
	Cat   models.Catalog

	Capacity     int64 // device capacity: the message, nvidia-smi, or --gpu; 0 unknown
	CapacityFrom string
	Capped       bool  // Capacity is a memory-fraction cap ("N allowed"), below the device's total
	Requested    int64 // 0 unknown
	Free         int64
	FreeKnown    bool
	Allocated    int64
	Reserved     int64 // PyTorch's reserved total; 0 unknown
	Unallocated  int64
	UnallocKnown bool
	InUse        int64 // this process, non-PyTorch memory included
	OthersBytes  int64 // other processes, as the message or nvidia-smi lists them

	Model     *models.Model
	ModelFrom Evidence // where the model id came from (Line 0 for --model)
	Params    int64    // from the catalogue or the name

	Training  float64 // 0..1: how strongly the log says this is training
	Inference float64 // 0..1: how strongly it says inference/serving

	// events on other ranks or devices, for cross-event rules
	Others []parser.Event

	// Measured is the memory snapshot read with the log, nil without one.
	Measured *snapshot.Measured

	texts *parser.TextSet // what Find searches, built on its first call
}

// NewFacts derives the facts for event i of the input.
func NewFacts(in Input, i int) *Facts {
	res := in.Result
	ev := &res.Events[i]
	f := &Facts{Ev: ev, Res: res, Input: res.Input, Cat: in.Catalog, Measured: in.Measured}
	val := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	f.Requested = val(ev.RequestedBytes)
	f.Free, f.FreeKnown = val(ev.FreeBytes), ev.FreeBytes != nil
	f.Allocated = val(ev.AllocatedBytes)
	f.Reserved = val(ev.ReservedBytes)
	f.Unallocated, f.UnallocKnown = val(ev.ReservedUnallocatedBytes), ev.ReservedUnallocatedBytes != nil
	if !f.UnallocKnown && ev.CachedBytes != nil {
		// PyTorch 1.0–1.3 print "N cached": memory the allocator holds
		// but has not handed out, what later versions call reserved but
		// unallocated.
		f.Unallocated, f.UnallocKnown = *ev.CachedBytes, true
	}
	f.InUse = val(ev.ProcessInUseBytes)
	for _, p := range ev.OtherProcesses {
		f.OthersBytes += val(p.Bytes)
	}
	switch {
	case ev.TotalBytes != nil:
		f.Capacity, f.CapacityFrom = *ev.TotalBytes, "message"
	case in.Hints.GPUBytes != nil:
		f.Capacity, f.CapacityFrom = *in.Hints.GPUBytes, "--gpu"
	default:
		gpu := ev.Device == nil || ev.Device.Type == "" || ev.Device.Type == "cuda" || ev.Device.Type == "rocm"
		for _, g := range res.Context.GPUs {
			if gpu && g.TotalBytes != nil && (ev.Device == nil || ev.Device.Index == nil || g.Index == nil || *g.Index == *ev.Device.Index) {
				f.Capacity, f.CapacityFrom = *g.TotalBytes, "nvidia-smi"
				break
			}
		}
	}
	if ev.AllowedBytes != nil && *ev.AllowedBytes > 0 && (f.Capacity == 0 || *ev.AllowedBytes < f.Capacity) {
		// set_per_process_memory_fraction caps what this process may use.
		f.Capacity, f.CapacityFrom = *ev.AllowedBytes, "allowed"
		f.Capped = true
	}
	f.findModel(in)
	for j := range res.Events {
		if j != i {
			f.Others = append(f.Others, res.Events[j])
		}
	}
	f.Training, f.Inference = f.workload()
	return f
}

// findModel picks the model: --model first, then the log's ids in order.
func (f *Facts) findModel(in Input) {
	if in.Hints.Model != "" {
		if m, ok := in.Catalog.Lookup(in.Hints.Model); ok {
			f.Model, f.ModelFrom = &m, Evidence{Input: f.Input, Text: "--model " + in.Hints.Model}
		} else if p, ok := models.ParamsFromName(in.Hints.Model); ok {
			f.Params, f.ModelFrom = p, Evidence{Input: f.Input, Text: "--model " + in.Hints.Model}
		}
	}
	if f.Model == nil && f.Params == 0 {
		for _, ref := range f.Res.Context.Models {
			if m, ok := in.Catalog.Lookup(ref.ID); ok {
				f.Model, f.ModelFrom = &m, Evidence{Input: f.Input, Line: ref.Line, Text: ref.ID}
				break
			}
			if p, ok := models.ParamsFromName(ref.ID); ok && f.Params == 0 {
				f.Params, f.ModelFrom = p, Evidence{Input: f.Input, Line: ref.Line, Text: ref.ID}
			}
		}
	}
	if f.Model != nil {
		f.Params = f.Model.Params
	}
}

// Holder is what the process holds on the device by the best figure the
// log gives: reserved, else in-use, else allocated plus the cached but
// unallocated memory (1.0–1.3 print only "cached", which is held too).
func (f *Facts) Holder() int64 {
	switch {
	case f.Reserved > 0:
		return f.Reserved
	case f.InUse > 0:
		return f.InUse
	}
	return f.Allocated + f.Unallocated
}

// contextAllowance is what a process holds outside its allocator's
// reserve before any tensor: the CUDA context with its kernels, and the
// cuBLAS and cuDNN handles and workspaces — several hundred MiB, about a
// GiB on older toolkits that load every kernel eagerly. A message that
// gives only the reserve (PyTorch 1.x) counts it in what is held outside.
const contextAllowance = 768 << 20

// Outside is device memory held by neither this process nor free:
// capacity − free − this process's in-use figure; where the message gives
// only the allocator's reserve, capacity − free − reserved − the context
// allowance (never below 0). It is -1 when unknown.
func (f *Facts) Outside() int64 {
	if f.Capacity == 0 || !f.FreeKnown {
		return -1
	}
	if f.Ev.Truncated && f.InUse == 0 && f.Reserved == 0 {
		// The message was cut before the clauses that say what this
		// process holds: what they would have said is unknown, not zero.
		return -1
	}
	if f.InUse > 0 {
		return f.Capacity - f.Free - f.InUse
	}
	held := f.Holder()
	if held == 0 {
		return -1
	}
	return max(f.Capacity-f.Free-held-contextAllowance, 0)
}

// A cue is a piece of the evidence vocabulary to find in the frames, the
// lines around the failure, or the message: one of the parser's named cues
// (shared with phase detection) or a culprit's own words.
type cue = parser.Cue

// words makes a culprit's own cue.
func words(ws ...string) cue { return parser.Cue{Words: ws} }

// followingCued is how many lines after the failure Find searches: a
// library's next line names the buffer that failed, a pasted traceback
// may follow its message; farther lines are another story.
const followingCued = 8

// Find returns the first line (innermost frame first, then the nearest
// context line, then the message, then the nearest lines after the
// failure) that contains one of the cue's words.
func (f *Facts) Find(c cue) (Evidence, bool) {
	k, ok := f.searched().First(c.Words)
	if !ok {
		return Evidence{}, false
	}
	ev := f.Ev
	n := len(ev.Frames)
	if k < n {
		fr := ev.Frames[n-1-k]
		shown := fr.Code
		if shown == "" || !hasAny(fr.Code, c.Words) {
			shown = strings.TrimSpace(`File "` + fr.File + `", in ` + fr.Function + ": " + fr.Code)
		}
		line := fr.LogLine
		if fr.Code != "" && hasAny(fr.Code, c.Words) {
			line = fr.LogLine + 1
		}
		return Evidence{Input: f.Input, Line: line, Text: shown}, true
	}
	k -= n
	if n := len(ev.ContextLines); k < n {
		l := ev.ContextLines[n-1-k]
		return Evidence{Input: f.Input, Line: l.Line, Text: l.Text}, true
	}
	k -= len(ev.ContextLines)
	if k == 0 {
		return f.EventLine(), true
	}
	l := ev.Following[k-1]
	return Evidence{Input: f.Input, Line: l.Line, Text: clip(l.Text, 240)}, true
}

// FindAfter is Find limited to the failure's own message and the
// followingCued lines after it: what the runtime says failed, not what it
// set up before.
func (f *Facts) FindAfter(c cue) (Evidence, bool) {
	if c.Matches(f.Ev.Message) {
		return f.EventLine(), true
	}
	for k, l := range f.Ev.Following {
		if k == followingCued {
			break
		}
		if c.Matches(l.Text) {
			return Evidence{Input: f.Input, Line: l.Line, Text: clip(l.Text, 240)}, true
		}
	}
	return Evidence{}, false
}

// searched is the texts Find searches, in its order, built on first use:
// each frame as its CueText, innermost first; the context
// lines, nearest first; the message; the first followingCued lines after
// the failure.
func (f *Facts) searched() *parser.TextSet {
	if f.texts != nil {
		return f.texts
	}
	ev := f.Ev
	texts := make([]string, 0, len(ev.Frames)+len(ev.ContextLines)+1+followingCued)
	for k := len(ev.Frames) - 1; k >= 0; k-- {
		fr := ev.Frames[k]
		texts = append(texts, fr.CueText())
	}
	for k := len(ev.ContextLines) - 1; k >= 0; k-- {
		texts = append(texts, ev.ContextLines[k].Text)
	}
	texts = append(texts, ev.Message)
	for k, l := range ev.Following {
		if k == followingCued {
			break
		}
		texts = append(texts, l.Text)
	}
	f.texts = parser.NewTextSet(texts)
	return f.texts
}

// Notice returns the first context notice with the id.
func (f *Facts) Notice(id string) (Evidence, bool) {
	for _, n := range f.Res.Context.Notices {
		if n.ID == id {
			return Evidence{Input: f.Input, Line: n.Line, Text: n.Text}, true
		}
	}
	return Evidence{}, false
}

// Setting returns the first setting with the name.
func (f *Facts) Setting(name string) (parser.Setting, bool) {
	for _, s := range f.Res.Context.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return parser.Setting{}, false
}

// EventLine is the failure's own line as evidence.
func (f *Facts) EventLine() Evidence {
	return Evidence{Input: f.Input, Line: f.Ev.Line, Text: clip(f.Ev.Message, 240)}
}

// hasAny reports whether s holds one of the cue words, matched as the
// parser's vocabulary matches them (parser.HasWord: whole identifiers
// stand alone, words with punctuation match as written).
func hasAny(s string, ws []string) bool { return parser.HasWord(s, ws) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// trainingCue holds words that only training code uses: the training
// loops of the Trainer, Lightning (fit_loop, training_epoch_loop), TensorFlow
// Estimator ("Error recorded from training_loop"), Keras
// (.fit, train_function), mmengine, detectron2, fairseq and ultralytics
// (train_…, trainer), accelerate's optimizer wrapper and gradient
// accumulation, gradient clipping, learning-rate schedules, epochs. A
// bare "accelerate/" is not one: accelerate's hooks run every inference
// forward of a model loaded with device_map.
func trainingCue() cue {
	return words("backward", "optimizer", "train(", "train.py", "train_", "_train", "training", "Trainer", "trainer", "loss", ".fit(", "training_step", "training_loop", "fit_loop", "training_epoch_loop", "_fit_impl", "accelerate/optimizer.py", "accelerator.accumulate", "deepspeed", "lora", "peft", "sft", "finetune", "fine_tune", "dreambooth", "grad_scaler", "zero_grad", "clip_grad_norm_", "lr_scheduler", "learning_rate", "gradient_accumulation_steps", "gradient_checkpointing", "Epoch", "epoch", "value_and_grad", "apply_gradients")
}

// inferenceCue holds words that only inference code uses: generation
// (generate, generate_step, transcribe, max_new_tokens), prediction loops,
// pipelines, no_grad and its decorator's frame (decorate_context), the
// diffusion front ends (ComfyUI, A1111's txt2img/img2img and
// process_images, k-diffusion samplers), embedding encoders, detection
// scripts, llama.cpp and ollama, ONNX Runtime, and every serving engine.
func inferenceCue() cue {
	c := words("generate", "generate_step", "transcribe", "max_new_tokens", "inference", "infer(", "predict", "predict_step", "stream_inference", "inference_on_dataset", "pipeline", "pipe(", "diffusers/", "chat(", "vllm", "no_grad", "inference_mode", "decorate_context", "Prompt executed", "comfy", "ComfyUI", "sampler", "sd_samplers", "k_diffusion", "txt2img", "img2img", "process_images", "sentence_transformers", "detect.py", "llama-server", "llama_cpp", "ollama", "onnxruntime", "vllm serve", "serving", "api_server", "evaluate", "demo")
	c.Words = append(c.Words, parser.CueServing().Words...)
	return c
}

// workload scores how strongly the log says training or inference.
func (f *Facts) workload() (training, inference float64) {
	if _, ok := f.Find(trainingCue()); ok {
		training = 0.8
	}
	if f.Ev.Phase == parser.PhaseBackward || f.Ev.Phase == parser.PhaseOptimizer {
		training = 1
	}
	if _, ok := f.Find(inferenceCue()); ok {
		inference = 0.8
	}
	switch f.Ev.Phase {
	case parser.PhaseGenerate, parser.PhaseDecode:
		inference = 1
	}
	switch f.Ev.Framework {
	case "vllm", "ggml", "mlx", "megengine":
		inference = max(inference, 0.6)
	}
	if training == 0 {
		// Weak priors: a rank prefix, a device other than 0 or a datacenter
		// card make a training job more likely than not.
		if f.Ev.Rank != nil {
			training += 0.3
		}
		if f.Ev.Device != nil && f.Ev.Device.Index != nil && *f.Ev.Device.Index > 0 {
			training += 0.3
		}
		if f.Capacity >= 40*gib {
			training += 0.2
		}
	}
	return training, inference
}

// TrainingLikely reports whether training outweighs inference.
func (f *Facts) TrainingLikely() bool { return f.Training > f.Inference && f.Training >= 0.3 }
