package render

import (
	"fmt"

	"github.com/oomdoc/oomdoc/parser"
)

// A note is what a report says of a notice line when it finds no failure
// (or beside one): what the line is, the line itself quoted, and what it
// means next. Every writer words it the same; each only styles it.
type note struct {
	lead   string // before the quoted line
	quoted string // the log's own line, clipped
	tail   string // after it, "" for nothing
}

// noteFor returns the note for a notice, and false for a notice no report
// notes (one the rules or the advice read instead). lines is how many
// lines the input had: a note may say whether anything follows its line.
func noteFor(n parser.Notice, lines int) (note, bool) {
	switch n.ID {
	case "nonfatal-oom-retry", "triton-out-of-resources", "tf-bfc-nonfatal", "xla-rematerialization":
		return note{fmt.Sprintf("line %d is a non-fatal memory warning, not a failure: ", n.Line), clipRunes(n.Text, 160), ""}, true
	case "nonfatal-oom-skipped":
		return note{fmt.Sprintf("line %d is an out-of-memory error the program caught: it skipped that batch and went on: ", n.Line), clipRunes(n.Text, 240), ". If such batches recur, the largest batches (longest sequences) are the ones that do not fit."}, true
	case "pinned-memory-fallback":
		after := "The lines after it say what came next."
		if n.Line >= lines {
			after = "The log ends on it: if the run stopped, what stopped it is not in this log."
		}
		return note{fmt.Sprintf("line %d is llama.cpp failing to pin host memory, a warning it follows by allocating an ordinary buffer instead: ", n.Line), clipRunes(n.Text, 160), ". " + after}, true
	case "possible-host-kill":
		return note{fmt.Sprintf("line %d names the kernel's OOM killer as only one possible cause of a worker's death: ", n.Line), clipRunes(n.Text, 160), "; `dmesg -T | grep -i kill` on that node, or Ray's raylet log (\"killed due to memory pressure\"), says whether it was."}, true
	case "offloaded-to-cpu", "offloaded-to-disk", "bnb-dispatched-to-cpu", "partially-loaded":
		return note{fmt.Sprintf("line %d says the model did not fit the GPU and was partly placed elsewhere (run `oomdoc explain weights-too-large`): ", n.Line), clipRunes(n.Text, 160), ""}, true
	}
	return note{}, false
}
