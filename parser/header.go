package parser

// A notebook exception header that is all a log says about its failure.

import (
	"strings"
)

// reMemoryHeader is an IPython traceback header naming a memory error
// class: "OutOfMemoryError                          Traceback (most recent call last)".
var reMemoryHeader = lazyRE(`^\s*(\S*(?:OutOfMemoryError|MemoryError|ResourceExhaustedError))\s+Traceback \(most recent call last\)`)

// headerFailure keeps a notebook's exception header that names a memory
// error as a tentative failure: when the message itself was not pasted, the
// header is all the log says, and it is kept if nothing else failed.
func (s *scanner) headerFailure(st stripped, no int) {
	if !strings.Contains(st.text, "Traceback (most recent call last)") || !strings.Contains(st.text, "Error") {
		return
	}
	m := reMemoryHeader.FindStringSubmatch(st.text)
	if m == nil || s.tentative != nil {
		return
	}
	ev := &Event{Input: s.res.Input, Line: no, endLine: no, Rank: st.rank, Exception: Optional(m[1]), Message: strings.TrimSpace(st.text), stream: st.stream, tentative: true, headerOnly: true, Truncated: true}
	switch {
	case strings.Contains(m[1], "OutOfMemoryError"):
		ev.Kind, ev.Framework, ev.Device = KindCUDA, "pytorch", &Device{Type: "cuda"}
	case strings.Contains(m[1], "ResourceExhausted"):
		ev.Kind, ev.Framework = KindTF, "tensorflow"
	default:
		ev.Kind, ev.Device = KindCPU, &Device{Type: "cpu"}
	}
	ev.Detection = &Detection{Family: "ipython-header", Tier: 1}
	if len(s.events) < MaxEvents {
		s.attachContext(ev)
		ev.Phase = phaseOf(ev)
		s.tentative = ev
	}
}
