package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
	return ParseWith(r, name, Options{})
}

// Options change how Parse reads; the zero value is Parse's.
type Options struct {
	// OneThread reads, prefilters and scans on the calling goroutine
	// rather than in stages on goroutines of their own: for a caller that
	// runs the analysis on a thread of lowered priority (beside a command
	// whose output it reads), since a goroutine the parser starts would
	// run at the normal one. The result is the same.
	OneThread bool
}

// ParseWith is Parse with options.
func ParseWith(r io.Reader, name string, o Options) (*Result, error) {
	src, err := decodeInput(r, name)
	if err != nil {
		return &Result{Input: name}, &ParseError{Input: name, Line: 1, Err: err}
	}
	return parseLinesWith(src, name, false, o.OneThread)
}

// parseLines reads a plain log. With slow set every line is read in full;
// otherwise only the head, the lines holding anchors and the lines around
// them (see driver.go). Both give the same result; tests compare them.
func parseLines(src io.Reader, name string, slow bool) (*Result, error) {
	return parseLinesWith(src, name, slow, false)
}

// parseLinesWith is parseLines, on one goroutine with oneThread.
func parseLinesWith(src io.Reader, name string, slow, oneThread bool) (*Result, error) {
	s := newScanner(name)
	s.slow = slow
	br := newBlockReader(src)
	no := 1
	for p := range preparedBlocks(br, oneThread) {
		no = s.block(p, no)
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

	t             *tables         // matchers, built once per process
	pre           *prefilter      // the per-line gate's keys, fetched on first use
	quiet         map[string]bool // line shapes that matched no failure
	tentative     *Event          // the last tentative failure (see Event.tentative)
	quietRaw      map[uint64]bool // raw line shapes known to hold no failure
	followEv      *Event          // the last event kept, whose following lines are quoted
	follow        int             // physical lines still to read in full for followEv
	curNo         int             // the line being read, and its text
	curText       string
	wrap          wrapLine // the last line that failed every matcher, for joinWrapped
	lineQuiet     bool     // the physical line being read holds no key at all
	rawShape      uint64   // the current line's raw shape, 0 when not computed
	errHeader     int      // the last line that was an error's header alone ("CUDA ERROR:"), 0 for none
	errHeaderSpan int      // … how many lines below it it covers
	errHeaderText string   // … and its text
}

// A ringLine is one recent line. Its text and progress counters are read
// at most once, when the first failure after it needs them, so that the
// work per line stays bounded however many failures follow it.
type ringLine struct {
	no          int
	buf         []byte
	ready       bool   // text, epoch and step are read
	text        string // the line with escapes and prefixes stripped
	epoch, step *int64
}

// prepare reads a ring line's text and progress counters once.
func (r *ringLine) prepare() {
	if r.ready {
		return
	}
	r.text = stripPrefixes(toText(stripANSI(r.buf))).text
	r.epoch, r.step = progressIn(r.text)
	r.ready = true
}

// pending is a failure whose message may continue on the next lines.
type pending struct {
	ev      *Event
	m       *failureMatcher
	msg     strings.Builder
	lines   int
	lastNo  int
	lastLen int // length of the last physical line read into it
}

// A wrapLine is a line that failed every matcher but may be the first half
// of a failure that a paste wrapped; the next line is tried joined to it.
type wrapLine struct {
	text   string
	stream string
	first  int // its first line
	last   int // its last line
}

func newScanner(name string) *scanner {
	res := &Result{Input: name}
	return &scanner{
		res:      res,
		tbs:      map[string]*traceback{},
		pending:  map[string]*pending{},
		ctxScan:  newContextScanner(&res.Context),
		t:        parserTables(),
		quiet:    map[string]bool{},
		quietRaw: map[uint64]bool{},
	}
}

// physical handles one physical line: tqdm's bare "\r" splits it into
// segments, each read as its own line with the same number.
func (s *scanner) physical(line []byte, no int) {
	if len(line) == 0 {
		s.segment(nil, no)
		return
	}
	// A physical line that fails the gate has no segment that passes it:
	// the segments of a redrawn progress bar are not searched one by one.
	s.lineQuiet = no > headLines && bytes.IndexByte(line, '\r') >= 0 && !s.gate(line)
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
	s.curNo, s.curText = no, ""
	if s.followEv != nil && s.follow > 0 && no > s.followEv.endLine && len(s.followEv.Following) < followingKept {
		s.curText = strings.TrimSpace(stripPrefixes(toText(stripANSI(seg))).text)
		s.quoteFollowing(no, s.curText)
	}
	if no > headLines && s.hot == 0 && len(s.pending) == 0 {
		if s.lineQuiet || !s.gate(seg) {
			return
		}
		// A line of a template seen before without a failure, outside any
		// traceback or message (a logger's step line that prints memory
		// figures), is known quiet before its prefixes are read.
		s.rawShape = rawShapeOf(seg)
		if s.quietRaw[s.rawShape] {
			return
		}
	} else {
		s.rawShape = 0
	}
	if s.hot > 0 {
		s.hot--
	}
	raw := unFence(unBold(toText(stripANSI(seg))))
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
	r.no, r.ready, r.text, r.epoch, r.step = no, false, "", nil, nil
	if len(seg) > 1024 {
		seg = seg[:1024]
	}
	r.buf = append(r.buf[:0], seg...)
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
	} else if st.stream == "" && len(s.pending) == 1 {
		// A continuation that lost the first line's rank or logger prefix
		// belongs to the one message open.
		for _, p := range s.pending {
			if s.extend(p, st.text, no) {
				return
			}
		}
	}
	s.closeUnwrapped(no)
	tb := s.tb(st.stream)
	s.headerFailure(st, no)
	if tb.feed(st.text, no) {
		s.hot = 4
		return
	}
	if tb.state == tbDone {
		s.hot = 2
	}
	text := st.text
	if s.joinWrapped(raw, st, no, tb) {
		return
	}
	// A line of a shape already seen without a failure (the same template
	// with other numbers, as training logs print every step) is not run
	// through the matchers again.
	switch span := errorHeader(text); {
	case span > 0:
		s.errHeader, s.errHeaderSpan, s.errHeaderText = no, span, strings.TrimSpace(text)
	case span < 0:
		s.errHeader = 0
	}
	shape := lineShape(text)
	if s.quiet[shape] && !digitSensitive(text) {
		s.markQuiet(text)
		s.notice(text, no)
		return
	}
	for i := range s.t.matchers {
		m := &s.t.matchers[i]
		if !containsAny(text, m.anchors) {
			continue
		}
		loc := m.find(text)
		if loc == nil {
			continue
		}
		var words []string
		if m.judge != nil {
			prefix := linePrefix(raw, text)
			w, ok := m.judge(text, prefix)
			if !ok && s.errHeader > 0 && no > s.errHeader && no-s.errHeader <= s.errHeaderSpan {
				w, ok = genericUnder(text, prefix, s.errHeaderText)
			}
			if !ok {
				continue
			}
			words = w
		}
		s.open(m, raw, st, text, loc[0], no, tb, words)
		return
	}
	if len(s.quiet) < 4096 {
		s.quiet[shape] = true
	}
	s.markQuiet(text)
	s.notice(text, no)
	if len(text) >= wrapWidth {
		s.wrap = wrapLine{text: text, stream: st.stream, first: no, last: no}
	}
}

// linePrefix is what stripPrefixes took off the front of raw to leave text:
// the logger's, launcher's and container's tags.
func linePrefix(raw, text string) string {
	if i := strings.LastIndex(raw, text); i > 0 {
		return raw[:i]
	}
	return ""
}

// joinWrapped tries a line as the rest of the wrapped line before it: a
// failure whose words a paste split across two lines is found in the two
// joined, and starts on the first. Only the exact families are tried.
func (s *scanner) joinWrapped(raw string, st stripped, no int, tb *traceback) bool {
	w := s.wrap
	if w.text == "" || w.last != no-1 || w.stream != st.stream {
		s.wrap = wrapLine{}
		return false
	}
	s.wrap = wrapLine{}
	if !s.wrapContinues(st.text) || len(w.text) > 2000 {
		return false
	}
	next := strings.TrimSpace(st.text)
	joined := w.text + " " + next
	if splitWord(w.text, next) {
		joined = w.text + next
	}
	for i := range s.t.matchers {
		m := &s.t.matchers[i]
		if m.judge != nil || !containsAny(joined, m.anchors) {
			continue
		}
		loc := m.find(joined)
		if loc == nil || loc[0] >= len(w.text) {
			continue // the failure must start on the first line
		}
		s.open(m, raw, stripped{text: joined, rank: st.rank, stream: st.stream}, joined, loc[0], w.first, tb, nil)
		if p := s.pending[st.stream]; p != nil {
			p.lastNo, p.lastLen = no, len(st.text)
		}
		return true
	}
	if len(joined) < 600 {
		s.wrap = wrapLine{text: joined, stream: st.stream, first: w.first, last: no}
	}
	return false
}

// markQuiet records the current line's raw shape as holding no failure.
func (s *scanner) markQuiet(text string) {
	if s.rawShape != 0 && !digitSensitive(text) && !noticeWorthy(text) && len(s.quietRaw) < 4096 {
		s.quietRaw[s.rawShape] = true
	}
}

// rawShapeOf hashes a physical line with its digits left out (FNV-1a over
// its first 512 bytes): lines printed from one template share it. (Packing
// the bytes eight to a word before mixing was measured twice as slow: the
// per-byte branch and shift chain cost more than the multiply.)
func rawShapeOf(b []byte) uint64 {
	if len(b) > 512 {
		b = b[:512]
	}
	h := uint64(14695981039346656037)
	for _, c := range b {
		if c >= '0' && c <= '9' {
			continue
		}
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h | 1 // never 0, which means "not computed"
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
	if no > s.scanned && noticeWorthy(text) {
		s.ctxScan.scan(text, no)
	}
}

// noticeWorthy reports whether a line is one of the non-fatal memory
// notices read anywhere in a log.
func noticeWorthy(text string) bool {
	return strings.Contains(text, "memory allocation failed with OOM") || strings.Contains(text, "OutOfResources") || strings.Contains(text, "out of resource:") || strings.Contains(text, "freed_by_count")
}

func containsAny(s string, subs []string) bool {
	for _, a := range subs {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

var reReprOpen = lazyRE(`([A-Za-z_][\w.]*)\(\s*['"]$`)
var reExcBefore = lazyRE(`([A-Za-z_][\w.]*(?:Error|Exception|Exhausted\w*))(?:\s*\([^)]*\))?\s*:\s*$`)

// open starts an event at the failure text found on a line.
func (s *scanner) open(m *failureMatcher, raw string, st stripped, text string, start, no int, tb *traceback, words []string) {
	s.stopFollowing(no)
	before := text[:start]
	ev := &Event{Input: s.res.Input, Line: no, Rank: st.rank, Kind: m.kind, stream: st.stream, engine: engineOf(st.stream, raw)}
	if words != nil {
		ev.Detection = &Detection{Family: m.name, Tier: 2, Words: words}
	}
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
	if strings.HasSuffix(raw, st.text) {
		ev.Framework = loggerFramework(raw[:len(raw)-len(st.text)])
	}
	ev.Frames = tb.take()
	p := &pending{ev: ev, m: m, lastNo: no, lastLen: max(len(text), len(raw))}
	p.msg.WriteString(cleanMessage(text[start:]))
	s.pending[st.stream] = p
	if !s.wantsMore(p) {
		s.close(st.stream)
	}
}

// closeUnwrapped closes the one-line messages held open for a wrap that the
// line being read did not continue.
func (s *scanner) closeUnwrapped(no int) {
	var done []string
	for stream, p := range s.pending {
		if p.m.more == nil && p.lastNo < no {
			done = append(done, stream)
		}
	}
	sort.Strings(done)
	for _, stream := range done {
		s.close(stream)
	}
}

// wrapWidth is the shortest line that reads as hard-wrapped by a paste or
// a terminal (pastes wrap at 72–120 columns).
const wrapWidth = 60

// wantsMore reports whether a pending message may go on on the next line:
// its family says so, or, for a family that reads one line, the last line
// was long and stopped mid-sentence, as a wrap leaves it.
func (s *scanner) wantsMore(p *pending) bool {
	if p.m.more != nil {
		return p.m.more(p.msg.String())
	}
	return p.lines < 3 && p.lastLen >= wrapWidth
}

// needsObject reports whether text ends on a preposition, whose object a
// wrap moved to the next line ("… and type float on" / "/job:localhost/…").
func needsObject(text string) bool {
	t := strings.TrimRight(text, " ")
	switch strings.ToLower(t[strings.LastIndexByte(t, ' ')+1:]) {
	case "on", "of", "by", "to", "at", "in", "from", "with", "for":
		return true
	}
	return false
}

// wrapRest reports whether next can be the rest of a wrapped line: it
// starts no record and no failure of its own.
func (s *scanner) wrapRest(next string) bool {
	t := strings.TrimSpace(next)
	return t != "" && isContinuation(t) && !reRecordStart.MatchString(t) && !s.startsFailure(t)
}

// reRecordStart is a line that starts a log record of its own: a prefix, a
// timestamp, a level, a "name: " label.
var reRecordStart = lazyRE(`^(?:\[|\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|[IWEF]\d{4} |(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL|FATAL)\b|[\w.\-]+:\s|\w+\s+\| )`)

// reUnitLead is a line that starts with the unit a wrap cut from its figure.
var reUnitLead = lazyRE(`^(?:[KMGTP]i?B|bytes)\b`)

// wrapContinues reports whether next reads as the wrapped rest of a line:
// prose that starts no record of its own and holds no failure by itself.
func (s *scanner) wrapContinues(next string) bool {
	t := strings.TrimSpace(next)
	if t == "" || !(t[0] >= 'a' && t[0] <= 'z' || isDigit(t[0]) || t[0] == '(' || reUnitLead.MatchString(t)) {
		return false // the rest of a sentence starts lower-case, with a figure or its unit
	}
	return s.wrapRest(t)
}

// startsFailure reports whether an exact family finds a failure that
// starts text (after at most an exception class): a new failure, not the
// rest of the last one.
func (s *scanner) startsFailure(text string) bool {
	for i := range s.t.matchers {
		m := &s.t.matchers[i]
		if m.judge != nil || !containsAny(text, m.anchors) {
			continue
		}
		if loc := m.find(text); loc != nil && reExcLead.MatchString(text[:loc[0]]) {
			return true
		}
	}
	return false
}

// reExcLead is what may stand before a failure's text at the start of a
// line: nothing, or an exception class.
var reExcLead = lazyRE(`^\s*(?:[\w.]*(?:Error|Exception)\s*:?\s*)?$`)

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
	if p.lines >= 8 || no-p.lastNo > 1 || !s.wantsMore(p) {
		return false
	}
	ok := isContinuation(text)
	switch {
	case p.m.more == nil:
		ok = s.wrapContinues(text)
	case p.m.cont != nil:
		ok = p.m.cont(text)
	}
	if p.m.contMsg != nil {
		ok = p.m.contMsg(p.msg.String(), text)
	}
	if !ok && p.lastLen >= wrapWidth && (s.wrapContinues(text) || needsObject(p.msg.String()) && s.wrapRest(text)) {
		ok = true // the family's line itself was wrapped
	}
	if !ok || p.msg.Len() > maxMessage {
		return false
	}
	prev := p.msg.String()
	next := cleanMessage(strings.TrimSpace(text))
	switch {
	case strings.HasSuffix(prev, "\\"):
		// a backslash continuation: the line goes on without a break
		p.msg.Reset()
		p.msg.WriteString(strings.TrimRight(strings.TrimSuffix(prev, "\\"), " "))
		if strings.HasSuffix(strings.TrimSuffix(prev, "\\"), " ") {
			p.msg.WriteByte(' ')
		}
	case splitWord(prev, next):
		// a word the wrap cut in two ("capac" / "ity of 15.57 GiB")
	case !strings.HasSuffix(prev, " "):
		p.msg.WriteByte(' ')
	}
	p.msg.WriteString(next)
	p.lines++
	p.lastNo, p.lastLen = no, len(text)
	if p.m.judge != nil {
		s.upgrade(p) // the wrapped line may make it a family's message
	}
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
