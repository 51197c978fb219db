package render

import (
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/parser"
)

// firstScreen is what a terminal shows before it scrolls: the verdict with
// its shortfall, where the message is (cited, not re-printed), the cause
// with its confidence — or, when the log does not decide it, what the log
// establishes, what it could be, what would decide and what to capture —
// and the first fix with its saving and snippet.
func (t *textWriter) firstScreen(rep advice.Report) {
	ev := rep.Events[0]
	t.hang("", "  ", t.st.verdict.Render("✗ "+verdictWords(&ev, rep.ShortBytes)))
	if note := oversubscribedWords(&ev); note != "" {
		t.para("  ", t.st.warn.Render("note: ")+note)
	}
	if !rep.Decided {
		t.undecided(rep, &ev)
		return
	}
	d := rep.Diagnoses[0]
	t.hang("  ", "    ", "Cause: "+t.st.culprit.Render(d.Culprit)+" "+t.st.conf.Render(fmt.Sprintf("(%.0f%%)", d.Confidence*100))+" — "+Safe(d.Title))
	t.firstFix(rep)
}

// undecided is the first screen of a log that does not decide the cause.
func (t *textWriter) undecided(rep advice.Report, ev *parser.Event) {
	if len(rep.Diagnoses) == 0 {
		short, _ := noCause(rep)
		t.para("  ", short)
	} else {
		t.para("  ", "Cause not decided by this log.")
	}
	if figs := figureWords(ev); figs != "" {
		t.hang("  ", "    ", "It shows: "+figs)
	}
	if len(rep.Diagnoses) > 0 {
		var could []string
		for i, d := range rep.Diagnoses {
			if i == 3 {
				break
			}
			could = append(could, fmt.Sprintf("%s (%.0f%%)", t.st.culprit.Render(d.Culprit), d.Confidence*100))
		}
		t.hang("  ", "    ", "Could be: "+strings.Join(could, ", "))
		if dec := rep.Diagnoses[0].Decide; dec != "" {
			t.hang("  ", "    ", "Would decide: "+Safe(dec))
		}
	}
	if len(rep.Capture) > 0 {
		first, recipe, _ := strings.Cut(rep.Capture[0], "\n")
		if recipe != "" {
			first = strings.TrimSuffix(first, ":") + " (recipe below)"
		}
		t.hang("  ", "    ", "Capture next: "+Safe(first))
	}
}

// firstFix shows the first fix the report offers, with its snippet.
func (t *textWriter) firstFix(rep advice.Report) {
	fx, ok := firstFix(rep)
	if !ok {
		return
	}
	t.line("")
	t.hang("  ", "    ", fixLead(rep)+Safe(fx.Title)+t.st.good.Render(savingWords(fx)))
	if fx.Saving != "" {
		t.para("    ", Safe(fx.Saving))
	}
	if fx.Snippet != "" {
		t.block("    ", Safe(fx.Snippet), t.st.code.Render)
	}
}

// fixLead introduces the first fix, naming its culprit when it is not the
// likeliest one (whose own fixes the log rules out).
func fixLead(rep advice.Report) string {
	for _, d := range rep.Diagnoses {
		if len(d.Fixes) > 0 {
			if d.Culprit != rep.Diagnoses[0].Culprit {
				return "Fix (for " + d.Culprit + "): "
			}
			break
		}
	}
	return "Fix: "
}

// firstFix is the report's first fix, if any.
func firstFix(rep advice.Report) (advice.Fix, bool) {
	for _, d := range rep.Diagnoses {
		if len(d.Fixes) > 0 {
			return d.Fixes[0], true
		}
	}
	return advice.Fix{}, false
}
