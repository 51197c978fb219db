package parser

import (
	"maps"
	"slices"
	"strings"
)

// A traceback cut before its exception line — a paste that stopped short,
// a log truncated by the job's end — can still show the failure: the
// innermost frame's code is the raise statement, with the message as a
// literal. vLLM's check_enough_kv_cache_memory shows it so:
//
//	  File ".../vllm/v1/core/kv_cache_utils.py", line 699, in check_enough_kv_cache_memory
//	    raise ValueError("No available memory for the cache blocks. "
//
// When nothing else failed and the log ends within raisedWindow lines of
// such a code line, an exact family that recognises the literal opens its
// event there, marked truncated: the exception line and any figures it
// carried are unknown.

// raisedWindow is how many lines may follow the raising code line: the
// rest of its literal and a cut line, not a traceback's worth.
const raisedWindow = 8

// raisedFailure opens, at the end of input, the failure a cut traceback's
// raising code line names, if any.
func (s *scanner) raisedFailure() {
	for _, stream := range slices.Sorted(maps.Keys(s.tbs)) { // map order must not reach the output
		tb := s.tbs[stream]
		if len(tb.frames) == 0 {
			continue
		}
		fr := tb.frames[len(tb.frames)-1]
		code := fr.Code
		no := fr.LogLine + 1
		if !strings.HasPrefix(code, "raise ") || s.res.Lines-no > raisedWindow {
			continue
		}
		for i := range s.t.matchers {
			m := &s.t.matchers[i]
			if m.judge != nil || !containsAny(code, m.anchors) {
				continue // exact families only: a literal is not a log line
			}
			loc := m.find(code)
			if loc == nil {
				continue
			}
			lit := code[loc[0]:]
			if j := strings.IndexAny(lit, `"'`); j >= 0 {
				lit = lit[:j] // the literal ends here; its continuation lines are code
			}
			n := len(s.events)
			s.open(m, code, stripped{text: lit, stream: stream}, lit, 0, no, tb, nil)
			s.close(stream)
			if len(s.events) > n {
				ev := s.events[len(s.events)-1]
				ev.Truncated = true
				ev.Detection = &Detection{Family: m.name + "/raise-literal", Tier: 1}
			}
			return
		}
	}
}
