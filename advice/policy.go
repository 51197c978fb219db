package advice

import (
	"fmt"
	"sort"

	"github.com/oomdoc/oomdoc/rules"
)

// choose decides, once for every format, which fixes the report shows:
// fixes the log rules out are dropped (and returned as won't-help entries
// that cite the line showing why), each fix appears once under the
// likeliest culprit that offers it, the first FixedDiagnoses culprits get
// at most FixesPerDiagnosis fixes each, and a note already given is not
// repeated. It also works out what each fix still leaves short.
func (rep *Report) choose(lf *logFacts, top *rules.Facts) []Ineffective {
	var tried []Ineffective
	seen, notes, out := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for di := range rep.Diagnoses {
		d := &rep.Diagnoses[di]
		kept := []Fix{}
		for _, fx := range d.Fixes {
			if di >= FixedDiagnoses || len(kept) == FixesPerDiagnosis {
				break
			}
			if seen[fx.ID] {
				continue // the same change, already offered for a likelier culprit
			}
			seen[fx.ID] = true
			if r, ok := lf.ruledOut(fx.ID, top.Ev.Line); ok {
				// The likeliest culprit's and those with evidence are always
				// accounted for; guesses' only when the user tried them or
				// following them harms.
				if r.fact != nil && (r.tried || r.warn || di == 0 || d.Basis == rules.BasisEvidence) && !out[fx.ID] {
					out[fx.ID] = true
					tried = append(tried, Ineffective{ID: fx.ID, Title: fx.Title, Why: r.words(), Event: d.Event, Line: r.fact.Line, Token: r.fact.Token, Tried: r.tried})
				}
				continue
			}
			if fx.Note != "" {
				if notes[fx.Note] {
					fx.Note = ""
				}
				notes[fx.Note] = true
			}
			fx.ShortAfter = shortAfter(fx, rep.ShortBytes, top.Capacity)
			if fx.after > 0 && top.Capacity > 0 && fx.ShortAfter != nil && *fx.ShortAfter > 0 {
				// The shortfall counts an allowance the device keeps for
				// itself: say so, or it does not add up.
				if fx.Saving == "" {
					fx.Saving = size(fx.after) + " after it"
				}
				fx.Saving += fmt.Sprintf(" + %s for the CUDA context > the device's %s", size(Reserve(top.Capacity)), size(top.Capacity))
			}
			kept = append(kept, fx)
		}
		d.Fixes = kept
	}
	return tried
}

// triedElsewhere lists the fixes the log shows the user already applied
// that no shown culprit offers: what was tried is worth saying whatever
// the diagnosis ("expandable_segments is already on, line 1").
func (rep *Report) triedElsewhere(base *fixContext, noted []Ineffective) []Ineffective {
	seen := map[string]bool{}
	for _, x := range noted {
		seen[x.ID] = true
	}
	ids := make([]string, 0, len(fixBuilders()))
	for id := range fixBuilders() {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Ineffective
	for _, culprit := range ids {
		c := *base
		c.fd = rules.Finding{Culprit: culprit, Event: base.f.Ev.ID}
		for _, fx := range fixesFor(&c) {
			if seen[fx.ID] {
				continue
			}
			if r, ok := base.lf.ruledOut(fx.ID, base.f.Ev.Line); ok && r.tried && r.fact != nil {
				seen[fx.ID] = true
				out = append(out, Ineffective{ID: fx.ID, Title: fx.Title, Why: r.words(), Event: base.f.Ev.ID, Line: r.fact.Line, Token: r.fact.Token, Tried: true})
			}
		}
	}
	return out
}

// shortAfter is what the request still lacks after fx alone: for a fix
// that shrinks the weights, their new size plus the device's reserve
// against its capacity; for one that shrinks the failing request, the
// shortfall less the saving. It is nil when the figures are unknown.
func shortAfter(fx Fix, short *int64, capacity int64) *int64 {
	zero := int64(0)
	switch {
	case fx.after > 0 && capacity > 0:
		if need := fx.after + Reserve(capacity) - capacity; need > 0 {
			return &need
		}
		return &zero
	case fx.after == 0 && short != nil && fx.SavesBytes != nil:
		if left := *short - *fx.SavesBytes; left > 0 {
			return &left
		}
		return &zero
	}
	return nil
}
