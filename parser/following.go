package parser

import "strings"

// The lines printed after a failure, quoted on its event.

// followingKept is how many lines after a failure an Event quotes.
const followingKept = 32

// startFollowing makes ev the event whose following lines are quoted; the
// next followingKept lines are read in full, in a fast read as in a full
// one. The line being read, if it is past the message, is the first.
func (s *scanner) startFollowing(ev *Event) {
	s.followEv, s.follow = ev, followingKept
	if s.curNo <= ev.endLine {
		return
	}
	text := s.curText
	if r := &s.ring[(s.ringNext+ringSize-1)%ringSize]; text == "" && r.no == s.curNo {
		// The line that closed a pending message was read before the
		// event existed to quote it.
		r.prepare()
		text = strings.TrimSpace(r.text)
	}
	if text != "" {
		s.quoteFollowing(s.curNo, text)
	}
}

// quoteFollowing adds a non-empty line to the followed event's quote.
func (s *scanner) quoteFollowing(no int, text string) {
	ev := s.followEv
	if text == "" || len(ev.Following) >= followingKept {
		return
	}
	if n := len(ev.Following); n > 0 && ev.Following[n-1].Line == no {
		ev.Following[n-1].Text = clip(ev.Following[n-1].Text+" "+text, 300) // a \r-split line
		return
	}
	ev.Following = append(ev.Following, Span{Line: no, Text: clip(text, 300)})
}

// stopFollowing ends the quote of the followed event where a new failure
// starts: the lines from there on are the new failure's.
func (s *scanner) stopFollowing(no int) {
	if ev := s.followEv; ev != nil {
		for len(ev.Following) > 0 && ev.Following[len(ev.Following)-1].Line >= no {
			ev.Following = ev.Following[:len(ev.Following)-1]
		}
	}
	s.followEv, s.follow = nil, 0
}

// resumeFollowing gives the quote back to prev when the failure that
// stopped it is a wrapper's words for prev's own ("llama_model_load: error
// loading model: failed to allocate buffer" after the allocation that
// failed): those words are a line after prev's failure, and often the one
// that says what the runtime was doing.
func (s *scanner) resumeFollowing(prev, ev *Event) {
	if len(prev.Following) < followingKept && ev.Line > prev.endLine {
		prev.Following = append(prev.Following, Span{Line: ev.Line, Text: clip(ev.Message, 300)})
	}
	s.followEv, s.follow = prev, followingKept
}

// continueFollowing gives the quote back to prev when the failure that
// stopped it was merged into prev as its repeat (ggml's next line of the
// same allocation, a wrapper's re-raise): the lines after the repeat
// follow prev's failure.
func (s *scanner) continueFollowing(prev *Event) {
	if len(prev.Following) < followingKept {
		s.followEv, s.follow = prev, followingKept
	}
}
