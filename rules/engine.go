package rules

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/oomdoc/oomdoc/parser"
)

// MaxFailures bounds how many distinct failures of one input are diagnosed;
// the rest repeat them (the same OOM on every rank, a retry loop).
const MaxFailures = 8

// maxConfidence is the most the engine ever claims.
const maxConfidence = 0.95

// minShown is the least confidence a report shows: the hundredth that
// confidences are rounded to. A finding the evidence supports never reads
// 0, and a guess below it is dropped.
const minShown = 0.01

// certainAbove is the confidence above which the first finding decides the
// case and leaves no room for bare base rates; below it the report is a
// hedge and the likeliest guesses stay listed.
const certainAbove = 0.5

// maxGuesses bounds the short list of culprits named only as priors.
const maxGuesses = 3

// Diagnose runs the culprits on every distinct failure of the input and
// returns the findings ranked: culprits with evidence first, by
// confidence, then at most a few plausible guesses (Basis prior,
// confidence ≤ PriorCap). An input without failures gets none.
func Diagnose(in Input, cs []Culprit) []Finding {
	return score(assess(in, cs), cs, committedWeights())
}

// An assessment is what the culprits found in one input, before scoring:
// the fitter and the engine share it, so what is fitted is what runs.
type assessment struct {
	options []option         // one per culprit and distinct failure that fired a signal
	context string           // the prior context of the first distinct failure
	kind    string           // the first distinct failure's event kind
	phase   string           // … and its phase
	thin    []string         // unknown-class features: why the log may not decide
	first   *Facts           // the first distinct failure's facts, for prior-only findings
	split   map[string]split // each distinct failure's shortfall and own holding, by event id
}

// An option is one culprit's finding for one failure.
type option struct {
	culprit int // index into the culprit list
	finding Finding
}

// assess runs every culprit that can explain each distinct failure.
func assess(in Input, cs []Culprit) assessment {
	var a assessment
	if in.Result == nil {
		return a
	}
	var facts []*Facts
	for _, i := range distinctFailures(in.Result.Events) {
		f := NewFacts(in, i)
		if f.Ev.RequestOverflow {
			// A request larger than any device ("more than 1EB") is a size
			// computed wrongly, not memory something holds: no culprit
			// explains it, not even as a guess.
			continue
		}
		facts = append(facts, f)
		if a.first == nil {
			a.first, a.context, a.kind, a.phase = f, priorContext(f), f.Ev.Kind, f.Ev.Phase
		}
		for k := range cs {
			c := &cs[k]
			if c.excludes(f.Ev.Kind) {
				continue
			}
			fd := c.Assess(f)
			if fd == nil || len(fd.Signals) == 0 {
				continue
			}
			if c.excludesPhase(f.Ev.Phase) && !c.firedEvidence(fd.Signals) {
				// A phase in which the culprit cannot hold the memory
				// overrules its priors and hypotheses, never its evidence
				// (the phase is read from the log too, and may be wrong).
				continue
			}
			fd.Culprit, fd.Event = c.ID, f.Ev.ID
			fd.Evidence = dedupeEvidence(fd.Evidence)
			a.options = append(a.options, option{culprit: k, finding: *fd})
		}
	}
	if a.first != nil {
		a.thin = thinFeatures(a)
	}
	a.split = splits(facts)
	return a
}

// thinFeatures name what in the log itself makes it unable to decide its
// cause (unknownFeatures adds the lack of supported evidence); the
// fitted weights of the unknown class are keyed by them.
func thinFeatures(a assessment) []string {
	out := []string{unknownBias}
	ev := a.first.Ev
	if a.first.Measured != nil {
		// A memory snapshot measured the holders: how thin the log text
		// is says nothing about what is known.
		return out
	}
	if len(ev.Frames) == 0 {
		out = append(out, unknownNoFrames)
	}
	if a.first.Res.Lines <= 3 {
		out = append(out, unknownOneLine)
	}
	if ev.Phase == parser.PhaseUnknown {
		out = append(out, unknownNoPhase)
	}
	if ev.Truncated {
		out = append(out, unknownTruncated)
	}
	if ev.Detection != nil && ev.Detection.Tier == 2 {
		out = append(out, unknownGeneric)
	}
	return out
}

// Features of the unknown class.
const (
	unknownBias       = "unknown/bias"
	unknownNoEvidence = "unknown/no-evidence-signal"
	unknownNoFrames   = "unknown/no-frames"
	unknownOneLine    = "unknown/message-only"
	unknownNoPhase    = "unknown/phase-unknown"
	unknownTruncated  = "unknown/message-truncated"
	unknownGeneric    = "unknown/generic-detection"
)

// supported reports whether the fired evidence signals, by their fitted
// weights, speak for the culprit: evidence the corpus shows to point away
// from it (a negative weight) makes no finding.
func supported(c *Culprit, fired []string, w Weights) bool {
	sum, any := 0.0, false
	for _, name := range fired {
		if s, ok := c.signal(name); ok && s.Strength == EvidenceSignal {
			sum += w.Signal[name]
			any = true
		}
	}
	return any && sum > 0
}

// A scored culprit: its best option's logit, or its prior alone.
type scored struct {
	culprit int
	logit   float64
	option  int // index into assessment.options; -1 for a prior alone
}

// logits returns each applicable culprit's best logit and the unknown
// class's logit. Culprits that fired nothing get their prior alone.
func logits(a assessment, cs []Culprit, w Weights) ([]scored, float64) {
	best := make([]scored, len(cs))
	backed := make([]bool, len(cs)) // best[k] rests on supported evidence
	for k := range best {
		best[k] = scored{culprit: k, logit: math.Inf(-1), option: -1}
	}
	for i, o := range a.options {
		z := w.prior(a.context, cs[o.culprit].ID)
		for _, s := range o.finding.Signals {
			z += w.Signal[s]
		}
		// A failure with evidence for the culprit outranks another failure
		// with only priors for it, whatever their logits.
		sup := supported(&cs[o.culprit], o.finding.Signals, w)
		if sup && !backed[o.culprit] || sup == backed[o.culprit] && z > best[o.culprit].logit {
			best[o.culprit], backed[o.culprit] = scored{culprit: o.culprit, logit: z, option: i}, sup
		}
	}
	var out []scored
	for k := range cs {
		if best[k].option < 0 {
			if cs[k].excludes(a.kind) || cs[k].excludesPhase(a.phase) || cs[k].GuessNeeds != nil && !cs[k].GuessNeeds(a.first) {
				continue
			}
			best[k].logit = w.prior(a.context, cs[k].ID) + w.Silent[cs[k].ID]
		}
		out = append(out, best[k])
	}
	u := 0.0
	for _, t := range unknownFeatures(a, cs, w) {
		u += w.Unknown[t]
	}
	return out, u
}

// unknownFeatures are the assessment's thin-log features plus, when no
// culprit has evidence the weights support, unknownNoEvidence: the same
// test that makes a finding a guess.
func unknownFeatures(a assessment, cs []Culprit, w Weights) []string {
	for _, o := range a.options {
		if supported(&cs[o.culprit], o.finding.Signals, w) {
			return a.thin
		}
	}
	return append(a.thin[:len(a.thin):len(a.thin)], unknownNoEvidence)
}

// probabilities normalises the logits with a softmax over the culprits and
// the unknown class; the last element is the unknown class's share.
func probabilities(zs []scored, u float64) []float64 {
	m := u
	for _, z := range zs {
		m = math.Max(m, z.logit)
	}
	ps := make([]float64, len(zs)+1)
	sum := 0.0
	for i, z := range zs {
		ps[i] = math.Exp(z.logit - m)
		sum += ps[i]
	}
	ps[len(zs)] = math.Exp(u - m)
	sum += ps[len(zs)]
	for i := range ps {
		ps[i] /= sum
	}
	return ps
}

// score turns an assessment into ranked findings.
func score(a assessment, cs []Culprit, w Weights) []Finding {
	if a.first == nil {
		return nil
	}
	zs, u := logits(a, cs, w)
	ps := probabilities(zs, u)
	var found, guesses []Finding
	for i, z := range zs {
		c := &cs[z.culprit]
		var fd Finding
		if z.option >= 0 {
			fd = a.options[z.option].finding
		} else {
			fd = priorFinding(c, a.first)
		}
		fd.share = ps[i]
		fd.Confidence = math.Min(w.calibrate(ps[i]), maxConfidence)
		fd.Basis = BasisEvidence
		if !supported(c, fd.Signals, w) {
			// A guess is its base rate given what the log shows: its share
			// among the culprits, since the unknown class says only that
			// the log cannot decide, not that no culprit is the cause —
			// capped, so that it never reads as a finding.
			fd.Basis = BasisPrior
			fd.Confidence = math.Min(ps[i]/(1-ps[len(zs)]), PriorCap)
			if fd.Decide == "" {
				fd.Decide = c.WouldDecide
			}
			if fd.Capture == "" && parser.OnPyTorch(a.first.Ev) {
				fd.Capture = c.Capture // written in torch's terms
			}
		}
		fd.Confidence = math.Round(fd.Confidence*100) / 100
		if fd.Basis == BasisEvidence {
			fd.Confidence = math.Max(fd.Confidence, minShown)
		}
		dev := deviceType(a.first.Ev)
		fd.Decide, fd.Capture = deviceSpelling(fd.Decide, dev), deviceSpelling(fd.Capture, dev)
		if fd.Basis == BasisEvidence {
			found = append(found, fd)
		} else if fd.Confidence >= minShown {
			guesses = append(guesses, fd)
		}
	}
	rank := func(fs []Finding) {
		sort.SliceStable(fs, func(i, j int) bool {
			if fs[i].share != fs[j].share {
				return fs[i].share > fs[j].share // the unrounded, uncapped share decides ties of display
			}
			return fs[i].Culprit < fs[j].Culprit
		})
	}
	rank(found)
	rank(guesses)
	markCoCulprits(found, a.split)
	if len(found) > 0 && found[0].Confidence > certainAbove {
		// The log decides firmly: bare base rates would only be noise.
		kept := guesses[:0]
		for _, g := range guesses {
			if len(g.Signals) > 0 {
				kept = append(kept, g)
			}
		}
		guesses = kept
	}
	if len(guesses) > maxGuesses {
		guesses = guesses[:maxGuesses]
	}
	if len(found) > 0 {
		// A guess is never ranked, nor shown, above a finding with evidence.
		floor := found[len(found)-1].Confidence
		for i := range guesses {
			guesses[i].Confidence = math.Min(guesses[i].Confidence, floor)
		}
	}
	return append(found, guesses...)
}

// priorFinding is the finding of a culprit that fired no signal: its
// title and documentation, named as a plausible cause for this kind of
// failure.
func priorFinding(c *Culprit, f *Facts) Finding {
	return Finding{
		Culprit:     c.ID,
		Event:       f.Ev.ID,
		Title:       c.Title,
		Explanation: "Nothing in the log points at this cause; it is common for failures of this kind. " + c.Doc,
		Evidence:    []Evidence{f.EventLine()},
		Quantities:  Quantities{CapacityBytes: f.Capacity, RequestedBytes: f.Requested},
		Decide:      c.WouldDecide,
	}
}

// distinctFailures returns the indexes of the events that are not repeats
// of an earlier one on another rank (same kind and figures).
func distinctFailures(evs []parser.Event) []int {
	seen := map[string]bool{}
	var out []int
	for i := range evs {
		k := failureKey(&evs[i])
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, i)
		if len(out) == MaxFailures {
			break
		}
	}
	return out
}

func failureKey(ev *parser.Event) string {
	v := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatInt(*p, 10)
	}
	return ev.Kind + "|" + ev.Phase + "|" + v(ev.RequestedBytes) + "|" + v(ev.TotalBytes) + "|" + v(ev.AllocatedBytes)
}

// dedupeEvidence drops empty and repeated evidence lines.
func dedupeEvidence(es []Evidence) []Evidence {
	var out []Evidence
	seen := map[Evidence]bool{}
	for _, e := range es {
		if e.Text == "" || seen[e] {
			continue
		}
		seen[e] = true
		out = append(out, e)
	}
	return out
}

// deviceType is the failing device's type ("cuda", "xpu", "mps"), "" when
// the event names none.
func deviceType(ev *parser.Event) string {
	if ev.Device == nil {
		return ""
	}
	return ev.Device.Type
}

// deviceSpelling writes torch.cuda calls for the device that failed: an
// XPU or an Apple GPU has torch.xpu and torch.mps.
func deviceSpelling(text, device string) string {
	switch device {
	case "xpu", "mps":
		return strings.ReplaceAll(text, "torch.cuda.", "torch."+device+".")
	}
	return text
}
