package parser

// Closing a failure message into an event: repeats merged first, context
// quoted from the ring, events kept in input order and numbered.

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// close finishes the pending event of a stream.
func (s *scanner) close(stream string) {
	p := s.pending[stream]
	if p == nil {
		return
	}
	delete(s.pending, stream)
	ev := p.ev
	if p.m.judge != nil && p.lines > 0 {
		s.upgrade(p) // the wrapped lines may make it a family's message
	}
	ev.Message = clip(p.msg.String(), maxMessage)
	ev.endLine = p.lastNo
	if p.m.closes && p.m.more != nil && p.m.more(ev.Message) {
		ev.Truncated = true // the input ended, or moved on, before the last clause
	}
	if s.sameAsRecent(ev, p.m) {
		return
	}
	p.m.fill(ev, ev.Message)
	if ev.RequestedBytes != nil && *ev.RequestedBytes >= implausibleBytes || ev.TensorBytes != nil && *ev.TensorBytes >= implausibleBytes {
		ev.RequestOverflow = true
	}
	if ev.Kind == "" {
		ev.Kind = p.m.kind
	}
	if ev.Detection == nil {
		ev.Detection = &Detection{Family: p.m.name, Tier: 1}
	}
	if ev.tentative {
		if len(s.events) < MaxEvents {
			s.attachContext(ev)
			ev.Phase = phaseOf(ev)
			s.tentative = ev
		}
		return
	}
	if ev.engine != "" {
		ev.Framework = ev.engine // the process that printed it runs a serving engine
	}
	// A repeat of a recent failure (a retry loop, a server logging every
	// failed request) is merged before any per-event work.
	if prev := s.repeatOf(ev); prev != nil {
		if prev.Phase == PhaseUnknown || len(prev.Frames) == 0 {
			s.attachContext(ev) // the repeat may still tell the phase
			ev.Phase = phaseOf(ev)
		} else {
			s.scanRing(ev.Line)
		}
		mergeInto(prev, ev)
		s.continueFollowing(prev)
		return
	}
	if len(s.events) >= MaxEvents {
		s.res.Dropped++ // past the limit: counted, not read further
		return
	}
	s.attachContext(ev)
	ev.Phase = phaseOf(ev)
	if ev.Framework == "" {
		ev.Framework = frameworkOf(ev)
	}
	if ev.Device == nil && ev.Kind == KindXLA {
		ev.Device = bfcDevice(ev.ContextLines)
	}
	ev.RaisedFrom = raisedFrom(ev)
	s.add(ev)
}

// sameAsRecent handles the commonest repeat at the least cost: the very
// message of a recent event of the same family on the same rank, whose
// phase and frames are known. It is merged before its figures are read.
func (s *scanner) sameAsRecent(ev *Event, m *failureMatcher) bool {
	for k := len(s.events) - 1; k >= 0 && k >= len(s.events)-8; k-- {
		prev := s.events[k]
		if prev.Message != ev.Message || prev.Detection == nil || prev.Detection.Family != m.name || !sameRank(prev.Rank, ev.Rank) {
			continue
		}
		if prev.Phase == PhaseUnknown || len(prev.Frames) == 0 || prev.Exception == "" && ev.Exception != "" || prev.Rank == nil && ev.Rank != nil {
			return false // the repeat may add something: take the full path
		}
		s.scanRing(ev.Line)
		return true
	}
	return false
}

// repeatOf returns the recent event that ev repeats, or nil.
func (s *scanner) repeatOf(ev *Event) *Event {
	for k := len(s.events) - 1; k >= 0 && k >= len(s.events)-8; k-- {
		if sameFailure(s.events[k], ev) {
			return s.events[k]
		}
	}
	return nil
}

// scanRing reads the context facts of the ring lines before line that were
// not read yet (each line once).
func (s *scanner) scanRing(line int) {
	if len(s.events) >= MaxEvents || line <= s.scanned {
		return
	}
	for k := ringSize; k >= 1; k-- {
		r := &s.ring[(s.ringNext-k+2*ringSize)%ringSize]
		if r.no == 0 || r.no >= line || r.no <= s.scanned {
			continue
		}
		r.prepare()
		s.ctxScan.scan(r.text, r.no)
	}
	s.scanned = line
}

// attachContext quotes the lines before the event, finds the last progress
// counter and reads the ring of recent lines for context facts. Each ring
// line is prepared once, however many failures follow it.
func (s *scanner) attachContext(ev *Event) {
	var lines []Span
	var epoch, step *int64
	progressLine := 0
	s.scanRing(ev.Line)
	for k := 1; k <= ringSize; k++ {
		r := &s.ring[(s.ringNext-k+2*ringSize)%ringSize]
		if r.no == 0 || r.no >= ev.Line {
			continue
		}
		if len(lines) >= contextLinesKept && (epoch != nil || step != nil) {
			break
		}
		r.prepare()
		if len(lines) < contextLinesKept && strings.TrimSpace(r.text) != "" && !inFrames(ev.Frames, r.no) {
			lines = append(lines, Span{Line: r.no, Text: clip(strings.TrimSpace(r.text), 300)})
		}
		if epoch == nil && step == nil && (r.epoch != nil || r.step != nil) {
			epoch, step, progressLine = r.epoch, r.step, r.no
		}
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	ev.ContextLines = append(lines, ev.ContextLines...)
	if epoch != nil || step != nil {
		ev.progress = &Progress{Epoch: epoch, Step: step, Line: progressLine}
	}
}

func inFrames(fs []Frame, no int) bool {
	for _, f := range fs {
		if f.LogLine == no || f.LogLine+1 == no {
			return true
		}
	}
	return false
}

// add appends an event, or merges it into an earlier one that reports the
// same failure (research/formats.md §7.2 item 5).
func (s *scanner) add(ev *Event) {
	for k := len(s.events) - 1; k >= 0 && k >= len(s.events)-8; k-- {
		prev := s.events[k]
		if sameFailure(prev, ev) {
			mergeInto(prev, ev)
			s.continueFollowing(prev)
			return
		}
		if bfcAnnounces(prev, ev) {
			adoptError(prev, ev)
			return
		}
		if wrapped(prev, ev) || errnoEcho(prev, ev) {
			s.resumeFollowing(prev, ev)
			return // a wrapper's words for a failure already read
		}
		if wrapped(ev, prev) {
			s.events[k] = ev // the exact report supersedes the wrapper's words
			s.startFollowing(ev)
			return
		}
	}
	if len(s.events) >= MaxEvents {
		s.res.Dropped++
		return
	}
	s.events = append(s.events, ev)
	s.startFollowing(ev)
}

// finish closes what is still open and numbers the events.
func (s *scanner) finish() {
	for _, stream := range slices.Sorted(maps.Keys(s.pending)) { // map order must not reach the output
		s.close(stream)
	}
	if len(s.events) == 0 && s.tentative == nil {
		s.raisedFailure()
	}
	// A tentative failure counts only when nothing else failed and the log
	// ends right after it: the process died there.
	if t := s.tentative; t != nil && len(s.events) == 0 && (t.headerOnly || s.res.Lines-t.Line <= 2) {
		s.events = append(s.events, t)
	}
	for _, ev := range s.events {
		bfcStats(ev)
		followingFigures(ev)
	}
	noted := map[string]bool{}
	s.events = slices.DeleteFunc(s.events, func(ev *Event) bool {
		l, id, ok := caughtAndWentOn(ev)
		if ok && !noted[id] && len(s.res.Context.Notices) < maxContextFacts {
			// One notice for the first of each: the rest repeat it.
			s.res.Context.Notices = append(s.res.Context.Notices, Notice{ID: id, Line: ev.Line, Text: clip(clip(ev.Message, 160)+" → "+l.Text, 300)})
			noted[id] = true
		}
		return ok
	})
	others := slices.ContainsFunc(s.events, func(ev *Event) bool { return ev.Variant != VariantRayWorkerDied && ev.Signal != "Terminated" })
	s.events = slices.DeleteFunc(s.events, func(ev *Event) bool {
		switch {
		case ev.Variant == VariantRayWorkerDied:
			return others || crashedOtherwise(ev)
		case ev.Kind == KindHostKill && ev.Signal == "Terminated":
			// A worker terminated while another failure ends the run, or
			// after a launcher's own "closing signal SIGTERM", was shut
			// down by its job, not by a memory monitor.
			return others || terminatedByJob(ev)
		}
		return false
	})
	sort.SliceStable(s.events, func(i, j int) bool { return s.events[i].Line < s.events[j].Line })
	s.res.Events = make([]Event, 0, len(s.events))
	for i, ev := range s.events {
		ev.ID = fmt.Sprintf("e%d", i+1)
		if ev.progress != nil {
			p := *ev.progress
			p.Event = ev.ID
			s.res.Context.Progress = append(s.res.Context.Progress, p)
		}
		s.res.Events = append(s.res.Events, *ev)
	}
}

// upgrade reads a generic message that took wrapped lines again with the
// exact families: one that now finds its failure in it owns the event.
func (s *scanner) upgrade(p *pending) {
	msg := p.msg.String()
	for i := range s.t.matchers {
		m := &s.t.matchers[i]
		if m.judge != nil || !containsAny(msg, m.anchors) {
			continue
		}
		if loc := m.find(msg); loc != nil {
			p.m, p.ev.Kind, p.ev.Detection = m, m.kind, nil
			p.msg.Reset()
			p.msg.WriteString(msg[loc[0]:])
			return
		}
	}
}

// terminatedByJob reports whether the lines around a worker's SIGTERM
// name who sent it (CueJobShutdown).
func terminatedByJob(ev *Event) bool {
	cue := CueJobShutdown()
	for _, spans := range [][]Span{ev.ContextLines, ev.Following} {
		for _, c := range spans {
			if cue.Matches(c.Text) {
				return true
			}
		}
	}
	return false
}

// crashedOtherwise reports whether a possible kill (a Ray worker's death,
// the OOM killer only first among the causes Ray lists) sits under lines
// that show the worker crashing of another cause: a segmentation fault, an
// abort, an illegal memory access. Such a death is no memory failure; nor
// is one in a log with another failure, which the death only follows.
func crashedOtherwise(ev *Event) bool {
	for _, c := range ev.ContextLines {
		for _, w := range []string{"Segmentation fault", "SIGSEGV", "SIGABRT", "SIGBUS", "illegal memory access", "core dumped"} {
			if strings.Contains(c.Text, w) {
				return true
			}
		}
	}
	return false
}

// reBFCStat reads a row of the BFC allocator's "Stats:" dump, which
// TensorFlow and XLA print with "ran out of memory trying to allocate":
// "Limit:                     10740170752", "InUse:   9867001856".
var reBFCStat = lazyRE(`^(Limit|InUse):\s+(\d+)$`)

// bfcStats takes the allocator's limit (the memory it may use on the
// device) and the bytes it has in use from the dump of the failing
// allocator, where the message itself printed neither. The allocator's
// own "ran out of memory trying to allocate" line comes before its dump;
// an op's "OOM when allocating tensor" line comes after it (TensorFlow
// 1.x): the event reads the dump on that side, both rows from one dump.
func bfcStats(ev *Event) {
	if ev.Kind != KindTF && ev.Kind != KindXLA {
		return
	}
	var limit, inUse *int64
	if strings.Contains(ev.Message, "ran out of memory trying to allocate") {
		limit, inUse = bfcDump(ev.Following, false)
	} else {
		limit, inUse = bfcDump(ev.ContextLines, true)
	}
	if ev.TotalBytes == nil {
		ev.TotalBytes = limit
	}
	if ev.AllocatedBytes == nil {
		ev.AllocatedBytes = inUse
	}
}

// bfcDump reads the Limit and InUse rows of one dump in lines: the first
// dump, or the last when last. InUse is the row that follows Limit.
func bfcDump(lines []Span, last bool) (limit, inUse *int64) {
	for i := 0; i < len(lines); i++ {
		m := reBFCStat.FindStringSubmatch(lines[i].Text)
		if m == nil || m[1] != "Limit" {
			continue
		}
		l, in := bfcRow(m), (*int64)(nil)
		if i+1 < len(lines) {
			if n := reBFCStat.FindStringSubmatch(lines[i+1].Text); n != nil && n[1] == "InUse" {
				in = bfcRow(n)
			}
		}
		limit, inUse = l, in
		if !last {
			return limit, inUse
		}
	}
	return limit, inUse
}

// bfcRow is a dump row's byte count, nil when it is not a positive number.
func bfcRow(m []string) *int64 {
	n, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil || n <= 0 {
		return nil
	}
	return &n
}
