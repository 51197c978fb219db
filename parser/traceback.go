package parser

import (
	"strconv"
	"strings"
)

// The traceback scanner is a small state machine run once per stream (a
// rank or process prefix), because ranks interleave their tracebacks line by
// line. Each state names the lines that move it on:
//
//	tbIdle: waiting for a traceback.
//	  → tbFrames on "Traceback (most recent call last):", on an IPython
//	    header ("OutOfMemoryError     Traceback (most recent call last)"),
//	    or on a frame line of a paste that starts mid-traceback
//	    (`  File "x.py", line 3, in f`).
//	tbFrames: collecting frames.
//	  `  File "…", line N, in F`  → new frame, its code on the next line
//	  `    code`, `----> 3 code`  → the current frame's code
//	  `    ^^^^`, `[Previous line repeated 9 more times]`, blank → skipped
//	                              (after a blank, an unindented line is no code)
//	  any other line            → the exception line: the frames wait for
//	                              the event that starts on it (tbDone)
//	tbDone: frames held for the exception line just seen.
//	  → tbFrames on a chained "Traceback …" (after "The above exception …")
//	  → tbIdle on anything else once the exception's message has ended.
type tbState int

const (
	tbIdle tbState = iota
	tbFrames
	tbDone
)

var (
	// `  File "/app/train.py", line 42, in main`
	rePyFrame = lazyRE(`^\s*File "([^"]*)", line (\d+)(?:, in (.*))?$`)
	// IPython ≥ 8: `File /opt/…/dataloader.py:1473, in _MultiProcessingDataLoaderIter._get_data(self)`
	reIPyFile = lazyRE(`^File (\S.*?):(\d+), in (\S+?)(?:\(.*)?$`)
	// IPython ≥ 8: `Cell In[5], line 3`
	reIPyCell = lazyRE(`^(Cell In\[\d+\]), line (\d+)`)
	// IPython ≤ 7: `<ipython-input-5-366cceb6869e> in <module>`, `/usr/…/module.py in _call_impl(self, *input)`
	reIPyOld = lazyRE(`^(<ipython-input-[\w-]+>|/\S+\.py) in (\S+?)(?:\(.*)?$`)
	// JupyterLab renders IPython paths as links:
	// `File [~/…/module.py:1511](http://host:8888/lab/tree/…#line=1510), in Module._call_impl(self)`
	reIPyLink = lazyRE(`^File \[(\S.*?):(\d+)\]\([^)]*\), in (\S+?)(?:\(.*)?$`)
	// Rich tracebacks: `│ /home/u/InvokeAI/black.py:16 in <module>                │`
	reRichFrame = lazyRE(`^│\s*(\S.*?):(\d+) in (\S+)\s*│?\s*$`)
	// IPython context: `----> 3 z = x @ y`, `-> 1473     success, data = …`, `      1 x = …`
	reIPyCode = lazyRE(`^\s*(-*>)?\s*(\d+) (.*)$`)
	// `OutOfMemoryError                          Traceback (most recent call last)`
	// Rich marks the raising line: `│ ❱ 16 image = pipe(prompt).images[0]   │`
	reRichCode  = lazyRE(`^│\s*(❱)?\s*(\d+)\s(.*?)\s*│?\s*$`)
	reIPyHeader = lazyRE(`^\S+\s+Traceback \(most recent call last\)`)
	reCaret     = lazyRE(`^\s*[\^~]+\s*$`)
)

// maxFrames bounds the frames kept per traceback: the outermost 32 and the
// innermost 96 survive a 1,000-deep recursion.
const maxFrames = 128

type traceback struct {
	state  tbState
	frames []Frame
	expect bool // the next indented line is the current frame's code
	blank  bool // the line before was blank
	doneAt int  // line of the exception line that ended the frames
}

// feed advances the state machine with one line (prefix already stripped).
// It reports whether the line was part of the traceback's body, so that the
// caller does not read a code line as a failure message.
func (tb *traceback) feed(text string, lineNo int) (body bool) {
	trim := strings.TrimSpace(text)
	afterBlank := tb.blank
	tb.blank = false
	if strings.Contains(trim, "Traceback (most recent call last)") && (strings.HasPrefix(trim, "Traceback") || strings.HasPrefix(trim, "╭") || reIPyHeader.MatchString(trim)) {
		if tb.state != tbFrames || len(tb.frames) > 0 {
			tb.frames = tb.frames[:0]
		}
		tb.state, tb.expect = tbFrames, false
		return true
	}
	if strings.HasPrefix(trim, "The above exception was the direct cause") || strings.HasPrefix(trim, "During handling of the above exception") {
		return true // the chained traceback that follows is read as a new one
	}
	if !strings.Contains(trim, "File") && !strings.HasPrefix(trim, "│") && tb.state != tbFrames && tb.state != tbDone {
		return false // no frame can start here: skip the patterns below
	}
	if m := rePyFrame.FindStringSubmatch(text); m != nil {
		if tb.state != tbFrames {
			tb.frames, tb.state = tb.frames[:0], tbFrames
		}
		n, _ := strconv.Atoi(m[2])
		tb.push(Frame{File: m[1], Line: n, Function: strings.TrimSpace(m[3]), LogLine: lineNo})
		tb.expect = true
		return true
	}
	// IPython's and Rich's frame lines are distinctive enough to open a
	// traceback on their own (pastes often start mid-traceback).
	for _, re := range []*lazyRegexp{reIPyLink, reRichFrame, reIPyFile} {
		if !strings.HasPrefix(trim, "File") && !strings.HasPrefix(trim, "│") {
			break
		}
		if m := re.FindStringSubmatch(trim); m != nil && (re != reIPyFile || tb.state == tbFrames || strings.Contains(m[1], ".py")) {
			if tb.state != tbFrames {
				tb.frames, tb.state = tb.frames[:0], tbFrames
			}
			n, _ := strconv.Atoi(m[2])
			tb.push(Frame{File: m[1], Line: n, Function: m[3], LogLine: lineNo})
			tb.expect = false
			return true
		}
	}
	if tb.state == tbDone && lineNo-tb.doneAt > doneWindow {
		tb.frames, tb.state = tb.frames[:0], tbIdle
	}
	if tb.state != tbFrames {
		return false
	}
	// Each pattern below runs only on a line whose first byte can begin
	// it: they are compiled on first use, and a plain Python traceback
	// needs none of IPython's.
	switch {
	case trim == "":
		// After a blank line an unindented line is the exception or a
		// message (TensorFlow's "Detected at node … defined at" frames end
		// with a blank line before "OOM when allocating tensor …"), not a
		// frame's code; an indented one still is (a double-spaced paste).
		tb.blank = true
		return true
	case (trim[0] == '^' || trim[0] == '~') && reCaret.MatchString(text) || strings.HasPrefix(trim, "[Previous line repeated") || strings.HasPrefix(trim, "[... skipping hidden"):
		return true
	case strings.HasPrefix(trim, "│") || strings.HasPrefix(trim, "╰") || strings.HasPrefix(trim, "╭"):
		if m := reRichCode.FindStringSubmatch(trim); m != nil && len(tb.frames) > 0 && m[1] != "" {
			tb.frames[len(tb.frames)-1].Code = strings.TrimSpace(m[3])
		}
		return true // the body of a Rich traceback box
	case strings.HasPrefix(trim, "Cell In[") && reIPyCell.MatchString(trim):
		m := reIPyCell.FindStringSubmatch(trim)
		n, _ := strconv.Atoi(m[2])
		tb.push(Frame{File: m[1], Line: n, Function: "<cell>", LogLine: lineNo})
		return true
	case (trim[0] == '<' || trim[0] == '/') && strings.Contains(trim, " in ") && reIPyOld.MatchString(trim):
		m := reIPyOld.FindStringSubmatch(trim)
		tb.push(Frame{File: m[1], Function: m[2], LogLine: lineNo})
		return true
	case len(tb.frames) > 0 && (isDigit(trim[0]) || trim[0] == '-' || trim[0] == '>') && reIPyCode.MatchString(text) && !tb.expect:
		m := reIPyCode.FindStringSubmatch(text)
		if m[1] != "" { // the arrow marks the line that raised
			f := &tb.frames[len(tb.frames)-1]
			f.Code = strings.TrimSpace(m[3])
			if f.Line == 0 {
				f.Line, _ = strconv.Atoi(m[2])
			}
		}
		return true
	case tb.expect && (strings.HasPrefix(text, " ") || strings.HasPrefix(text, "\t")):
		tb.frames[len(tb.frames)-1].Code = trim
		tb.expect = false
		return true
	case tb.expect && !afterBlank && len(text) > 0 && text[0] != ' ' && !looksLikeException(trim):
		// A code line that lost its indentation (a paste), or an IPython body.
		tb.frames[len(tb.frames)-1].Code = trim
		tb.expect = false
		return true
	}
	if tb.state == tbFrames {
		tb.state, tb.expect, tb.doneAt = tbDone, false, lineNo
	}
	return false
}

func (tb *traceback) push(f Frame) {
	if len(tb.frames) >= maxFrames {
		// keep the outermost 32 frames and the innermost ones
		copy(tb.frames[32:], tb.frames[33:])
		tb.frames = tb.frames[:len(tb.frames)-1]
	}
	tb.frames = append(tb.frames, f)
}

// take hands the collected frames to an event and resets the machine.
func (tb *traceback) take() []Frame {
	if tb.state == tbIdle || len(tb.frames) == 0 {
		return nil
	}
	out := append([]Frame(nil), tb.frames...)
	tb.frames, tb.state = tb.frames[:0], tbIdle
	return out
}

// doneWindow is how many lines after an exception line its frames wait for
// a memory failure: NCCL's DistBackendError prints "Cuda failure 2 'out of
// memory'" a few lines below the exception header.
const doneWindow = 12

var reExceptionLine = lazyRE(`^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure)\b(?:\(|:|$)`)

func looksLikeException(s string) bool { return reExceptionLine.MatchString(s) }
