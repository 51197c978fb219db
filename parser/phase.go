package parser

import "strings"

// phaseCue ties a phase to the vocabulary cue that reveals it in a
// frame's function, code or file, or in a line before the failure.
type phaseCue struct {
	phase string
	cue   Cue
}

// phaseCues are tried in priority order: an optimizer step inside a
// training loop is "optimizer-step", not "forward", even though both
// appear in the frames; loading wins over the forward that a warm-up runs.
func phaseCues() []phaseCue {
	return []phaseCue{
		{PhaseOptimizer, CueOptimizer()},
		{PhaseBackward, CueBackward()},
		{PhaseLoad, CueLoad()},
		{PhaseData, CueData()},
		{PhaseDecode, CueDecode()},
		{PhaseGenerate, CueGenerate()},
		{PhaseEval, CueEval()},
		{PhaseForward, CueForward()},
	}
}

// closureCue marks a frame that runs the training step an optimizer was
// handed as a closure: Lightning's automatic optimization passes the
// forward and backward to optimizer.step(closure), and LBFGS calls its
// closure too, so the step's forward runs inside adam.py's frames. Frames
// inner to such a frame are that forward and backward, not the update.
func closureCue() Cue {
	return Cue{"closure", []string{"closure", "_wrap_closure", "training_step_and_backward"}}
}

// phaseOf names the phase from an event's frames, its own message and the
// lines just before it.
func phaseOf(ev *Event) string {
	frames := ev.Frames
	if loadsInConstructor(ev) || killedWhileLoading(ev) {
		return PhaseLoad
	}
	for k := len(frames) - 2; k >= 0; k-- {
		f := frames[k]
		if closureCue().Matches(f.Function + " " + f.Code) {
			frames = frames[k+1:] // the closure's own step, inside the optimizer's frames
			break
		}
	}
	var b strings.Builder
	for _, f := range frames {
		if !constructor(f) {
			// A constructor is building its object, whatever its module
			// does later: WhisperModel.__init__ in transcribe.py loads
			// weights, it does not transcribe.
			b.WriteString(f.File)
		}
		b.WriteByte(' ')
		b.WriteString(f.Function)
		b.WriteString("( ")
		b.WriteString(f.Code)
		b.WriteByte('\n')
	}
	hasFrames := b.Len() > 0
	ctx := ev.ContextLines
	if !hasFrames {
		ctx = sinceContextSetup(ctx)
	}
	for _, c := range ctx {
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	b.WriteString(ev.Message)
	text := b.String()
	for _, pc := range phaseCues() {
		if pc.cue.Matches(text) {
			return pc.phase
		}
	}
	if !hasFrames && ev.Kind == KindHostKill && strings.Contains(ev.Message, "DataLoader") {
		return PhaseData
	}
	return PhaseUnknown
}

// loadsInConstructor reports whether a failure raised in a constructor is
// its model loading: CTranslate2 builds no tensors from Python, so its
// failure in a constructor is a model object (Whisper, Translator,
// Generator) loading the weights.
func loadsInConstructor(ev *Event) bool {
	n := len(ev.Frames)
	return ev.Framework == "ctranslate2" && n > 0 && constructor(ev.Frames[n-1])
}

// killedWhileLoading reports whether a host kill cut a loading progress
// bar: "Loading checkpoint shards:  38%|███ | 3/8 [00:08<00:14]Killed" on
// one line. Such a bar stays in the context after loading has finished,
// so it names the phase only when the kill lands on it.
func killedWhileLoading(ev *Event) bool {
	if ev.Kind != KindHostKill || len(ev.ContextLines) == 0 {
		return false
	}
	last := ev.ContextLines[len(ev.ContextLines)-1]
	return last.Line == ev.Line && CueLoadingBar().Matches(last.Text)
}

// sinceContextSetup returns the context lines from the last one of a
// native runtime's context set-up on. Such a runtime logs its stages in
// order, so the loading lines above it are done (llama.cpp's load_tensors
// before its KV cache and compute buffers).
func sinceContextSetup(ctx []Span) []Span {
	for k := len(ctx) - 1; k >= 0; k-- {
		if CueContextSetup().Matches(ctx[k].Text) {
			return ctx[k:]
		}
	}
	return ctx
}

// constructor reports whether a frame runs a Python constructor:
// __init__ (IPython names it WhisperModel.__init__), or "init" where a
// Markdown paste ate the underscores. A constructor's phase is not read
// from its module's name; nor is a constructor alone a phase: caches,
// buffers and DistributedDataParallel allocate in theirs too.
func constructor(f Frame) bool {
	fn := f.Function
	if i := strings.LastIndexByte(fn, '.'); i >= 0 {
		fn = fn[i+1:]
	}
	return fn == "__init__" || fn == "init"
}
