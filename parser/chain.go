package parser

import "strings"

// reRaisedHeader is the first line of a Python exception as a traceback
// ends with it:
//
//	RuntimeError: CUDA error: no kernel image is available for execution on the device
var reRaisedHeader = lazyRE(`^(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Exhausted\w*)(?:\s*\([^)]*\))?:\s`)

// raisedFrom returns the exception a failure was raised from, when the
// lines just above it show Python's chain: an exception line, then "The
// above exception was the direct cause of the following exception:" (or
// "During handling of the above exception, another exception occurred:"),
// then the failure's own traceback. It is nil when they show none. A
// wrapper that rewords every error as memory (TGI's warm-up did) is told
// apart by it.
func raisedFrom(ev *Event) *Span {
	chained := false
	for k := len(ev.ContextLines) - 1; k >= 0; k-- {
		t := strings.TrimSpace(ev.ContextLines[k].Text)
		switch {
		case strings.HasPrefix(t, "The above exception was the direct cause") || strings.HasPrefix(t, "During handling of the above exception"):
			chained = true
		case chained && reRaisedHeader.MatchString(t):
			return &Span{Line: ev.ContextLines[k].Line, Text: t}
		case !chained && !strings.HasPrefix(t, "Traceback"):
			return nil // the lines above are not the end of a chained traceback
		}
	}
	return nil
}
