package rules

// A Culprit is everything oomdoc knows about one cause, in one value: its
// id and documentation, the event kinds it can never explain, the named
// signals its Assess function may fire, and what would decide it when the
// log does not. Scores are not the culprit's business: Assess only says
// which signals the log shows, and the engine (engine.go) turns signals
// into calibrated confidences with the fitted table (weights.tsv).
//
// Adding a culprit takes three steps: its file here (and its line in All),
// its fixtures under fixtures/culprits/<id>/ (positives it must rank first,
// not-*.log near misses it must not name), and its line in the spec.
type Culprit struct {
	ID        string // culprit id from spec/culprits.md; also the fixtures/culprits/<ID> folder
	Title     string // one line: what holds the memory
	Doc       string // the explain page's body: why this holds memory and how it grows
	Recognise string // how to recognise it in a log
	// Excludes lists the event kinds this culprit can never explain (a
	// kernel OOM kill is never the KV cache): the engine does not ask.
	Excludes []string
	// ExcludesPhases lists the phases in which the culprit cannot hold the
	// memory (no training activations while loading): it is then never
	// named as a guess.
	ExcludesPhases []string
	// GuessNeeds, when set, names the kind of model or program the culprit
	// belongs to (images for visual tokens, a diffusion pipeline for a VAE
	// decode): without one of its words near the failure, or the --model
	// hint's catalogue entry saying so, the culprit is not even a guess —
	// a base rate learned from logs of other programs says nothing here.
	GuessNeeds func(f *Facts) bool
	// Signals are the pieces of evidence Assess may fire, each with its
	// strength and the weight it starts from before fitting.
	Signals []Signal
	// WouldDecide and Capture say, for a culprit named only as a prior,
	// which fact would settle it and how to get that fact.
	WouldDecide string
	Capture     string
	// Assess looks at one event with its derived facts and returns the
	// culprit's finding with the signals it fired, or nil when none fired.
	Assess func(f *Facts) *Finding
}

// Strength says what kind of support a signal is.
type Strength int

// Signal strengths. Only EvidenceSignal makes a finding: a culprit whose
// fired signals are all HypothesisSignal or PriorSignal is a guess, capped
// at PriorCap and never ranked above a culprit with evidence.
const (
	// EvidenceSignal is a fact of this failure: a frame, a cue line near it, the
	// failure's own words, an exact arithmetic identity of its figures.
	EvidenceSignal Strength = iota
	// HypothesisSignal is arithmetic without corroboration: a byte count that
	// happens to factor as tokens × a vocabulary, a quadratic size.
	HypothesisSignal
	// PriorSignal is a property of the kind of job rather than of the failure:
	// a training-looking log, a full device, an old message format.
	PriorSignal
)

// String names the strength as the weights table writes it.
func (s Strength) String() string {
	switch s {
	case EvidenceSignal:
		return "evidence"
	case HypothesisSignal:
		return "hypothesis"
	}
	return "prior"
}

// A Signal is one named piece of support for a culprit.
type Signal struct {
	Name     string   // "<culprit>/<what>", unique across culprits
	Strength Strength // evidence, hypothesis or prior
	// Start is the log-odds weight the fit starts from and is pulled back
	// to (regularisation): the domain knowledge before the corpus speaks.
	Start float64
	Doc   string // what in the log fires it
}

// signal finds a declared signal by name.
func (c *Culprit) signal(name string) (Signal, bool) {
	for _, s := range c.Signals {
		if s.Name == name {
			return s, true
		}
	}
	return Signal{}, false
}

// excludes reports whether the culprit never explains events of the kind.
func (c *Culprit) excludes(kind string) bool {
	for _, k := range c.Excludes {
		if k == kind {
			return true
		}
	}
	return false
}

// excludesPhase reports whether the culprit cannot explain a failure in
// the phase.
func (c *Culprit) excludesPhase(phase string) bool {
	for _, p := range c.ExcludesPhases {
		if p == phase {
			return true
		}
	}
	return false
}

// firedEvidence reports whether any of the fired signals is one of the
// culprit's evidence signals.
func (c *Culprit) firedEvidence(fired []string) bool {
	for _, name := range fired {
		if s, ok := c.signal(name); ok && s.Strength == EvidenceSignal {
			return true
		}
	}
	return false
}

// fire records that the log shows the named signal.
func (fd *Finding) fire(name string) {
	for _, s := range fd.Signals {
		if s == name {
			return
		}
	}
	fd.Signals = append(fd.Signals, name)
}
