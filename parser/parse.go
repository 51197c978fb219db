package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// MaxEvents bounds the events kept from one input; later ones are counted
// in Result.Dropped. A log with 100,000 OOMs is a retry loop, and its first
// thousand failures say all there is to say.
const MaxEvents = 1000

// headLines is how many lines at the start of an input are read in full for
// context (environment dumps, model loading, configuration). After that,
// context is read only around failures, from the ring of recent lines.
const headLines = 1024

// ringSize is how many recent lines are kept for the context of a failure.
const ringSize = 256

// contextLinesKept is how many lines before a failure an Event quotes.
const contextLinesKept = 8

// maxMessage bounds one failure message.
const maxMessage = 8 << 10

// A ParseError reports why reading stopped early. The events found before
// it are still returned.
type ParseError struct {
	Input string
	Line  int
	Err   error
}

// Error names the input, the line and the cause.
func (e *ParseError) Error() string {
	return fmt.Sprintf("read %s at line %d: %v", e.Input, e.Line, e.Err)
}

// Unwrap returns the read error.
func (e *ParseError) Unwrap() error { return e.Err }

// ErrBinary reports an input that is not text: an executable, an image,
// a model file passed by mistake.
var ErrBinary = errors.New("looks like a binary file, not a log")

// Parse reads one input — a plain log, a gzip-compressed log, UTF-16 text
// or a Jupyter notebook (see decodeInput) — and returns the memory
// failures in it with their context. Finding no failure is not an error.
// On a read error Parse returns what it found so far together with a
// *ParseError.
func Parse(r io.Reader, name string) (*Result, error) {
	src, err := decodeInput(r, name)
	if err != nil {
		return &Result{Input: name}, &ParseError{Input: name, Line: 1, Err: err}
	}
	return parseLines(src, name, false)
}

// parseLines reads a plain log. With slow set every line is read in full;
// otherwise only the head, the lines holding anchors and the lines around
// them (see driver.go). Both give the same result; tests compare them.
func parseLines(src io.Reader, name string, slow bool) (*Result, error) {
	s := newScanner(name)
	s.slow = slow
	br := newBlockReader(src)
	no := 1
	for {
		b, ok := br.next()
		if !ok {
			break
		}
		no = s.block(b, no)
	}
	s.res.Lines = no - 1
	s.finish()
	if err := br.Err(); err != nil {
		return s.res, &ParseError{Input: name, Line: no, Err: err}
	}
	return s.res, nil
}

// scanner holds the state of one Parse call.
type scanner struct {
	res       *Result
	tbs       map[string]*traceback
	pending   map[string]*pending
	events    []*Event
	ctxScan   *contextScanner
	scanned   int // last line the context scanner has read
	ring      [ringSize]ringLine
	ringNext  int
	hot       int    // lines left that must be read in full (open tracebacks)
	slow      bool   // read every line in full (the reference behaviour)
	fed       int    // the last line number fed
	tailBuf   []byte // the end of the previous block, for replay
	tailFirst int    // the number of tailBuf's first line

	gateAnchors [][]byte         // gateAnchors(), built once per Parse
	matchers    []failureMatcher // failureMatchers(), built once per Parse
	quiet       map[string]bool  // line shapes that matched no failure
}

type ringLine struct {
	no  int
	buf []byte
}

// pending is a failure whose message may continue on the next lines.
type pending struct {
	ev     *Event
	m      *failureMatcher
	msg    strings.Builder
	lines  int
	lastNo int
}

func newScanner(name string) *scanner {
	res := &Result{Input: name}
	return &scanner{
		res:         res,
		tbs:         map[string]*traceback{},
		pending:     map[string]*pending{},
		ctxScan:     newContextScanner(&res.Context),
		gateAnchors: gateAnchors(),
		matchers:    failureMatchers(),
		quiet:       map[string]bool{},
	}
}

// physical handles one physical line: tqdm's bare "\r" splits it into
// segments, each read as its own line with the same number.
func (s *scanner) physical(line []byte, no int) {
	if len(line) == 0 {
		s.segment(nil, no)
		return
	}
	for len(line) > 0 {
		i := bytes.IndexByte(line, '\r')
		if i < 0 {
			s.segment(line, no)
			return
		}
		if i > 0 {
			s.segment(line[:i], no)
		}
		line = line[i+1:]
	}
}

func (s *scanner) segment(seg []byte, no int) {
	s.remember(seg, no)
	if no > headLines && s.hot == 0 && len(s.pending) == 0 && !s.gate(seg) {
		return
	}
	if s.hot > 0 {
		s.hot--
	}
	raw := toText(stripANSI(seg))
	st := stripPrefixes(raw)
	if no <= headLines && no > s.scanned {
		if isProgress(st.text) {
			s.ctxScan.notices(st.text, no) // a redrawn bar: its notices only
		} else {
			s.ctxScan.scan(st.text, no)
		}
		s.scanned = no
	}
	s.line(raw, st, no)
}

// remember keeps a bounded copy of the line in the ring of recent lines.
func (s *scanner) remember(seg []byte, no int) {
	r := &s.ring[s.ringNext]
	s.ringNext = (s.ringNext + 1) % ringSize
	r.no = no
	if len(seg) > 1024 {
		seg = seg[:1024]
	}
	r.buf = append(r.buf[:0], seg...)
}

// gate is the cheap test every line passes before any pattern runs: it lets
// through lines that could start or belong to a failure or a traceback.
func (s *scanner) gate(b []byte) bool {
	for _, a := range s.gateAnchors {
		if bytes.Contains(b, a) {
			return true
		}
	}
	return false
}

// gateAnchors are the words of the per-line gate.
func gateAnchors() [][]byte {
	return [][]byte{
		[]byte("emory"), []byte("llocat"), []byte("EMORY"), []byte("ALLOC"), []byte("xhausted"), []byte("EXHAUSTED"),
		[]byte("illed"), []byte("Traceback"), []byte("File "), []byte("Cell In["), []byte("ipython-input"),
		[]byte("CUDNN_STATUS"), []byte("exitcode"), []byte("code = -9"), []byte("SIGKILL"), []byte("oom"), []byte("OOM"),
		[]byte("died"), []byte("KV cache"), []byte("cache blocks"),
	}
}

func (s *scanner) tb(stream string) *traceback {
	t := s.tbs[stream]
	if t == nil {
		if len(s.tbs) > 4096 {
			for k := range s.tbs {
				delete(s.tbs, k)
			}
		}
		t = &traceback{}
		s.tbs[stream] = t
	}
	return t
}

// line handles one logical line.
func (s *scanner) line(raw string, st stripped, no int) {
	if p := s.pending[st.stream]; p != nil {
		if s.extend(p, st.text, no) {
			return
		}
		s.close(st.stream)
	}
	tb := s.tb(st.stream)
	if tb.feed(st.text, no) {
		s.hot = 4
		return
	}
	if tb.state == tbDone {
		s.hot = 2
	}
	text := st.text
	// A line of a shape already seen without a failure (the same template
	// with other numbers, as training logs print every step) is not run
	// through the matchers again.
	shape := lineShape(text)
	if s.quiet[shape] && !digitSensitive(text) {
		s.notice(text, no)
		return
	}
	for i := range s.matchers {
		m := &s.matchers[i]
		if !containsAny(text, m.anchors) {
			continue
		}
		loc := m.locate.FindStringIndex(text)
		if loc == nil {
			continue
		}
		s.open(m, raw, st, text, loc[0], no, tb)
		return
	}
	if len(s.quiet) < 4096 {
		s.quiet[shape] = true
	}
	s.notice(text, no)
}

// lineShape is a line with its digits removed: lines printed from one
// template share it.
func lineShape(text string) string {
	if len(text) > 512 {
		text = text[:512]
	}
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, text)
}

// digitSensitive reports whether a line holds one of the few failure forms
// that a digit decides ("exitcode: -9" but not -15, "Signal 9", "cuda
// runtime error (2)", "Cuda failure 2"): such lines bypass the shape cache.
func digitSensitive(text string) bool {
	return strings.Contains(text, "-9") || strings.Contains(text, "(2)") || strings.Contains(text, "=2") ||
		strings.Contains(text, "Signal ") || strings.Contains(text, "failure ")
}

// notice records the non-fatal memory lines that must never become events
// even after the head of the log.
func (s *scanner) notice(text string, no int) {
	if no > s.scanned && (strings.Contains(text, "memory allocation failed with OOM") || strings.Contains(text, "OutOfResources") || strings.Contains(text, "out of resource:") || strings.Contains(text, "freed_by_count")) {
		s.ctxScan.scan(text, no)
	}
}

func containsAny(s string, subs []string) bool {
	for _, a := range subs {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

var reReprOpen = regexp.MustCompile(`([A-Za-z_][\w.]*)\(\s*['"]$`)
var reExcBefore = regexp.MustCompile(`([A-Za-z_][\w.]*(?:Error|Exception|Exhausted\w*))(?:\s*\([^)]*\))?\s*:\s*$`)

// open starts an event at the failure text found on a line.
func (s *scanner) open(m *failureMatcher, raw string, st stripped, text string, start, no int, tb *traceback) {
	before := text[:start]
	ev := &Event{Input: s.res.Input, Line: no, Rank: st.rank, Kind: m.kind, stream: st.stream, engine: engineOf(st.stream, raw)}
	if mm := reExcBefore.FindStringSubmatch(before); mm != nil {
		ev.Exception = Optional(mm[1])
		before = before[:len(before)-len(mm[0])]
	} else if mm := reReprOpen.FindStringSubmatch(before); mm != nil {
		ev.Exception = Optional(mm[1])
		before = before[:len(before)-len(mm[0])]
	}
	if code := strings.TrimSpace(before); len(code) > 8 && !strings.HasPrefix(code, "FAILED") {
		// A GUI that dropped a newline left the failing code line in front.
		ev.ContextLines = append(ev.ContextLines, Span{Line: no, Text: clip(code, 300)})
	}
	ev.Frames = tb.take()
	p := &pending{ev: ev, m: m, lastNo: no}
	p.msg.WriteString(cleanMessage(text[start:]))
	s.pending[st.stream] = p
	if m.more == nil || !m.more(p.msg.String()) {
		s.close(st.stream)
	}
}

// engineOf names the serving engine whose process printed a line, from its
// prefix: vLLM tags its processes ("(VllmWorkerProcess pid=…)",
// "(EngineCore_DP0 pid=…)") and its log lines ("ERROR 04-01 … [file.py:N]").
func engineOf(stream, raw string) string {
	switch {
	case strings.Contains(stream, "Vllm"), strings.Contains(stream, "EngineCore"), strings.Contains(stream, "APIServer"):
		return "vllm"
	case vllmPrefix.MatchString(strings.TrimSpace(strings.TrimPrefix(raw, stream))):
		return "vllm"
	}
	return ""
}

// extend offers a following line to a pending message; it reports whether
// the line was taken.
func (s *scanner) extend(p *pending, text string, no int) bool {
	if p.lines >= 8 || no-p.lastNo > 1 || p.m.more == nil || !p.m.more(p.msg.String()) {
		return false
	}
	ok := isContinuation(text)
	if p.m.cont != nil {
		ok = p.m.cont(text)
	}
	if !ok || p.msg.Len() > maxMessage {
		return false
	}
	prev := p.msg.String()
	if !strings.HasSuffix(prev, " ") {
		p.msg.WriteByte(' ')
	}
	p.msg.WriteString(cleanMessage(strings.TrimSpace(text)))
	p.lines++
	p.lastNo = no
	return true
}

// isContinuation says whether a line reads as the hard-wrapped rest of a
// message rather than a new log record.
func isContinuation(text string) bool {
	t := strings.TrimSpace(text)
	switch {
	case t == "", strings.HasPrefix(t, "Traceback"), strings.HasPrefix(t, "File \""), strings.HasPrefix(t, "During handling"),
		strings.HasPrefix(t, "The above exception"), strings.HasPrefix(t, "Exception raised from"), strings.HasPrefix(t, "frame #"),
		looksLikeException(t), len(t) > 2000:
		return false
	}
	return true
}

// cleanMessage undoes JSON and repr escaping and collapses whitespace runs
// (the allocator's hints carry double spaces).
func cleanMessage(s string) string {
	if strings.Contains(s, `\n`) || strings.Contains(s, `\"`) || strings.Contains(s, `\'`) {
		s = strings.NewReplacer(`\n`, " ", `\"`, `"`, `\'`, "'", `\t`, " ").Replace(s)
	}
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimSuffix(strings.TrimSpace(s), "')")
	return strings.TrimSuffix(s, `")`)
}

// close finishes the pending event of a stream.
func (s *scanner) close(stream string) {
	p := s.pending[stream]
	if p == nil {
		return
	}
	delete(s.pending, stream)
	ev := p.ev
	ev.Message = clip(p.msg.String(), maxMessage)
	p.m.fill(ev, ev.Message)
	if ev.Kind == "" {
		ev.Kind = p.m.kind
	}
	if ev.engine != "" {
		ev.Framework = ev.engine // the process that printed it runs a serving engine
	}
	if len(s.events) >= MaxEvents && !s.repeats(ev) {
		s.res.Dropped++ // past the limit: counted, not read further
		return
	}
	s.attachContext(ev)
	ev.Phase = phaseOf(ev)
	s.add(ev)
}

// repeats reports whether ev is a repeat of one of the last events kept.
func (s *scanner) repeats(ev *Event) bool {
	for k := len(s.events) - 1; k >= 0 && k >= len(s.events)-8; k-- {
		if sameFailure(s.events[k], ev) {
			return true
		}
	}
	return false
}

// attachContext quotes the lines before the event and reads the ring of
// recent lines for context facts (once per line).
func (s *scanner) attachContext(ev *Event) {
	var lines []Span
	var epoch, step *int64
	progressLine := 0
	for k := 1; k <= ringSize; k++ {
		r := &s.ring[(s.ringNext-k+2*ringSize)%ringSize]
		if r.no == 0 || r.no >= ev.Line {
			continue
		}
		text := stripPrefixes(toText(stripANSI(r.buf))).text
		if len(lines) < contextLinesKept && strings.TrimSpace(text) != "" && !inFrames(ev.Frames, r.no) {
			lines = append(lines, Span{Line: r.no, Text: clip(strings.TrimSpace(text), 300)})
		}
		if epoch == nil && step == nil {
			if e, st := progressIn(text); e != nil || st != nil {
				epoch, step, progressLine = e, st, r.no
			}
		}
		if r.no > s.scanned && len(s.events) < MaxEvents {
			s.ctxScan.scan(text, r.no)
		}
	}
	if len(s.events) < MaxEvents {
		s.scanned = max(s.scanned, ev.Line)
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
			return
		}
	}
	if len(s.events) >= MaxEvents {
		s.res.Dropped++
		return
	}
	s.events = append(s.events, ev)
}

// finish closes what is still open and numbers the events.
func (s *scanner) finish() {
	// Close in input order (then by stream), not map order: events on one
	// physical line would otherwise be numbered differently from run to run.
	open := make([]string, 0, len(s.pending))
	for stream := range s.pending {
		open = append(open, stream)
	}
	sort.Slice(open, func(i, j int) bool {
		a, b := s.pending[open[i]].ev, s.pending[open[j]].ev
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return open[i] < open[j]
	})
	for _, stream := range open {
		s.close(stream)
	}
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
