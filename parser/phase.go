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

// phaseOf names the phase from an event's frames, its own message and the
// lines just before it.
func phaseOf(ev *Event) string {
	var b strings.Builder
	for _, f := range ev.Frames {
		b.WriteString(f.File)
		b.WriteByte(' ')
		b.WriteString(f.Function)
		b.WriteString("( ")
		b.WriteString(f.Code)
		b.WriteByte('\n')
	}
	hasFrames := b.Len() > 0
	for _, c := range ev.ContextLines {
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
