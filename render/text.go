package render

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// Text writes the terminal report: the first screen (first.go), then the
// failure with its memory bar, the ranked culprits with their evidence and
// arithmetic, the fixes with their savings, what will not help, what fits,
// and what to capture next when the log does not decide the cause.
func Text(w io.Writer, rep advice.Report, o Options) error {
	bw := bufio.NewWriter(w)
	t := &textWriter{w: bw, st: newStyles(w, o.Color), width: o.Width, snap: measuredFor(rep, o)}
	t.report(rep)
	if t.err != nil {
		return t.err
	}
	return bw.Flush()
}

type textWriter struct {
	w     *bufio.Writer
	st    styles
	width int
	err   error
	snap  *snapshot.Measured // the memory snapshot read for this input
}

func (t *textWriter) line(s string) {
	if t.err == nil {
		_, t.err = t.w.WriteString(s + "\n")
	}
}

// para writes wrapped text with an indent on every line.
func (t *textWriter) para(indent, s string) { t.hang(indent, indent, s) }

// hang writes wrapped text whose first line starts with first and whose
// other lines are indented by rest (a hanging indent).
func (t *textWriter) hang(first, rest, s string) {
	width := max(t.width-ansi.StringWidth(rest), 20)
	wrapped := unglue(ansi.Wordwrap(glue(s), width, " /"))
	for i, l := range strings.Split(wrapped, "\n") {
		pre := rest
		if i == 0 {
			pre = first
		}
		t.line(pre + strings.TrimRight(l, " "))
	}
}

// Stand-ins that keep wrapping from breaking at a hyphen (ids, dim=-1)
// or between a figure and its unit: ansi.Wordwrap always breaks after a
// hyphen, and never inside a word.
const (
	keepHyphen = '\u2011' // non-breaking hyphen
	keepSpace  = '\ue000' // a private-use rune, never in a report
)

// Wrap wraps plain text at width columns without breaking at a hyphen or
// between a figure and its unit.
func Wrap(s string, width int) string {
	return unglue(ansi.Wordwrap(glue(s), width, " /"))
}

// glue makes the hyphens and the spaces between a figure and its unit
// ("2.00 GiB", "512 bytes") unbreakable.
func glue(s string) string {
	s = strings.ReplaceAll(s, "-", string(keepHyphen))
	if !strings.Contains(s, " ") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 1; i+1 < len(s); i++ {
		if s[i] == ' ' && s[i-1] >= '0' && s[i-1] <= '9' && unitAt(s[i+1:]) {
			if last == 0 {
				b.Grow(len(s) + 16)
			}
			b.WriteString(s[last:i])
			b.WriteRune(keepSpace)
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// unitAt reports whether s starts with a unit of bytes as a whole word:
// bytes, KiB, MiB, GiB, TiB, GB, MB or B.
func unitAt(s string) bool {
	n := 0
	switch {
	case strings.HasPrefix(s, "bytes"):
		n = 5
	case len(s) >= 3 && strings.IndexByte("KMGT", s[0]) >= 0 && s[1] == 'i' && s[2] == 'B':
		n = 3
	case len(s) >= 2 && (s[0] == 'G' || s[0] == 'M') && s[1] == 'B':
		n = 2
	case len(s) >= 1 && s[0] == 'B':
		n = 1
	default:
		return false
	}
	return n == len(s) || !wordByte(s[n])
}

// wordByte is \w of the regexp syntax, for ASCII.
func wordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func unglue(s string) string {
	s = strings.ReplaceAll(s, string(keepHyphen), "-")
	return strings.ReplaceAll(s, string(keepSpace), " ")
}

// block writes preformatted text (code) as it is: snippets are meant to be
// copied, so long lines are not cut.
func (t *textWriter) block(indent, s string, style func(...string) string) {
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		t.line(strings.TrimRight(indent+style(l), " "))
	}
}

func (t *textWriter) heading(s string) {
	t.line("")
	t.line(t.st.heading.Render(s))
}

func (t *textWriter) report(rep advice.Report) {
	name := strings.Join(rep.Inputs, ", ")
	if len(rep.Events) == 0 {
		if name == "-" {
			name = "standard input"
		}
		if rep.Lines == 0 && name != "standard input" {
			// (an empty standard input gets the command's hint that
			// tracebacks go to stderr instead)
			t.line(t.st.good.Render("✓ No out-of-memory failure found") + ": " + SafeLine(name) + " is empty.")
			t.para("  ", "Pass the log of the run that failed (python train.py 2>&1 | oomdoc, or the file it was written to).")
			return
		}
		t.line(t.st.good.Render("✓ No out-of-memory failure found") + " in " + SafeLine(name) + ".")
		t.para("  ", "oomdoc looked for PyTorch (CUDA, ROCm, MPS, XPU, NPU, CPU), cuDNN/cuBLAS/NCCL, vLLM, TGI, JAX/XLA, TensorFlow, PaddlePaddle, ONNX Runtime, TensorRT, CTranslate2, MLX, llama.cpp, Windows paging-file and host OOM-killer messages, and for any error that speaks of running out of memory. If this run did crash, pass the whole log — the error is often above the last lines.")
		t.measured(t.snap)
		t.notices(rep)
		return
	}
	t.firstScreen(rep)
	t.measured(t.snap)
	for _, g := range groupEvents(rep.Events) {
		t.failure(g)
	}
	t.culprits(rep)
	t.fixes(rep)
	t.wontHelp(rep)
	t.whatFits(rep)
	t.capture(rep)
	if rep.Dropped > 0 {
		t.line("")
		t.para("", fmt.Sprintf("%d more failures in the input were counted but not kept (limit %d).", rep.Dropped, parser.MaxEvents))
	}
}

// an eventGroup is one failure as printed by one or more ranks.
type eventGroup struct {
	ev    parser.Event
	ranks []int
	count int
}

// groupEvents shows the same failure on many ranks once, with the ranks.
func groupEvents(evs []parser.Event) []eventGroup {
	var out []eventGroup
	index := map[string]int{}
	for _, ev := range evs {
		k := ev.Kind + "|" + ev.Phase + "|" + stripRankDigits(ev.Message)
		if i, ok := index[k]; ok && ev.Rank != nil {
			out[i].ranks = append(out[i].ranks, *ev.Rank)
			out[i].count++
			continue
		}
		g := eventGroup{ev: ev, count: 1}
		if ev.Rank != nil {
			g.ranks = []int{*ev.Rank}
			index[k] = len(out)
		}
		out = append(out, g)
		if len(out) == 6 {
			break
		}
	}
	return out
}

func stripRankDigits(msg string) string {
	// "GPU 3 has a total capacity" differs per rank only in the device digit.
	var b strings.Builder
	prevGPU := false
	for _, f := range strings.Fields(msg) {
		if prevGPU && len(f) <= 3 {
			f = "N"
		}
		prevGPU = f == "GPU" || f == "(GPU"
		b.WriteString(f + " ")
	}
	return b.String()
}

func (t *textWriter) failure(g eventGroup) {
	ev := g.ev
	title := "Failure " + ev.ID
	if g.count > 1 {
		title += fmt.Sprintf(" (and the same on %d ranks)", g.count)
	}
	t.heading(title)
	row := func(k, v string) { t.hang("  "+t.st.faint.Render(fmt.Sprintf("%-9s", k))+" ", "            ", v) }
	if g.ev.ID != "e1" {
		row("what", verdictWords(&ev, nil))
	}
	if ev.Device != nil {
		d := deviceName(ev.Device)
		if ev.TotalBytes != nil {
			d += " · " + parser.FormatSize(*ev.TotalBytes) + capacityWord(&ev)
		}
		row("device", d)
	}
	if ev.Phase != "" {
		row("phase", ev.Phase)
	}
	if len(g.ranks) > 0 {
		row("rank", joinRanks(g.ranks))
	}
	row("where", SafeLine(whereWords(ev.Input, ev.Line)))
	if len(ev.Frames) > 0 {
		f := ev.Frames[len(ev.Frames)-1]
		row("frame", SafeLine(fmt.Sprintf("%s:%d in %s", shortPath(f.File), f.Line, f.Function)))
		if f.Code != "" {
			row("", t.st.code.Render(Safe(f.Code)))
		}
	}
	t.memory(&ev)
}

func (t *textWriter) memory(ev *parser.Event) {
	b, ok := barOf(ev)
	if !ok {
		return
	}
	width := min(t.width-4, 72)
	bar, marker := b.draw(t.st, width)
	t.line("")
	t.line("  " + bar)
	if marker != "" {
		t.line("  " + marker)
	}
	var parts []string
	if b.knownAllocated {
		parts = append(parts, t.st.barAlloc.Render("█")+" allocated "+parser.FormatSize(b.allocated))
	}
	if b.knownUnalloc {
		parts = append(parts, t.st.barUnalloc.Render("▓")+" reserved, unused "+parser.FormatSize(b.unallocated))
	}
	if b.knownOutside {
		parts = append(parts, t.st.barOutside.Render("▒")+" outside PyTorch "+parser.FormatSize(b.outside))
	}
	if b.knownFree {
		parts = append(parts, t.st.barFree.Render("░")+" free "+parser.FormatSize(b.free))
	}
	t.para("  ", strings.Join(parts, "   "))
	if b.request > 0 && ev.RequestOverflow {
		t.para("  ", t.st.barRequest.Render("└")+fmt.Sprintf(" request %s: more than any device holds", parser.FormatSize(b.request)))
	} else if b.request > 0 && b.knownFree {
		if b.request > b.free {
			t.para("  ", t.st.barRequest.Render("└")+fmt.Sprintf(" request %s > free %s: short by %s", parser.FormatSize(b.request), parser.FormatSize(b.free), parser.FormatSize(b.request-b.free)))
		} else {
			t.para("  ", t.st.barRequest.Render("└")+fmt.Sprintf(" request %s ≤ free %s: the allocation failed although the space exists", parser.FormatSize(b.request), parser.FormatSize(b.free)))
		}
	}
}

func (t *textWriter) culprits(rep advice.Report) {
	if len(rep.Diagnoses) == 0 {
		t.heading("Cause")
		_, long := noCause(rep)
		t.para("  ", long)
		return
	}
	t.heading("Culprits, most likely first")
	cited := map[string]bool{}
	for _, ev := range rep.Events {
		cited[fmt.Sprintf("%s:%d", ev.Input, ev.Line)] = true // the message: cited above, not re-printed
	}
	for i, d := range rep.Diagnoses {
		t.line("")
		t.hang("  ", "     ", fmt.Sprintf("%d. %s %s  %s", i+1, t.st.culprit.Render(d.Culprit), t.st.conf.Render(fmt.Sprintf("%.0f%%", d.Confidence*100)), Safe(d.Title)))
		for _, a := range d.Arithmetic {
			t.para("     ", t.st.warn.Render("= ")+Safe(a))
		}
		t.para("     ", Safe(d.Explanation))
		var again []string
		for _, e := range d.Evidence {
			loc := fmt.Sprintf("%s:%d", e.Input, e.Line)
			if e.Line == 0 {
				loc = "(given)"
			} else if cited[loc] {
				again = append(again, fmt.Sprint(e.Line))
				continue
			}
			cited[loc] = true
			t.hang("     ", "       ", t.st.faint.Render(SafeLine(loc))+"  "+t.st.code.Render(SafeLine(clipRunes(e.Text, 200))))
		}
		if len(again) > 0 {
			t.para("     ", t.st.faint.Render("also rests on line "+strings.Join(again, ", ")+" (above)"))
		}
		if d.Decide != "" {
			t.para("     ", t.st.faint.Render("would decide: ")+Safe(d.Decide))
		}
	}
}

func (t *textWriter) fixes(rep advice.Report) {
	n := 0
	for _, d := range rep.Diagnoses {
		n += len(d.Fixes)
	}
	if n == 0 {
		return
	}
	if rep.Decided {
		t.heading("Fixes, best first")
	} else {
		t.heading("Fixes, if it is one of these culprits")
	}
	first, _ := firstFix(rep)
	k := 0
	for _, d := range rep.Diagnoses {
		for _, fx := range d.Fixes {
			k++
			t.line("")
			t.hang("  ", "     ", fmt.Sprintf("%d. %s%s  %s", k, Safe(fx.Title), t.st.good.Render(savingWords(fx)), t.st.id.Render("["+fx.ID+"]")))
			if len(rep.Diagnoses) > 1 {
				t.para("     ", t.st.faint.Render("for "+d.Culprit))
			}
			shownAbove := rep.Decided && fx.ID == first.ID
			if fx.Saving != "" && !shownAbove {
				t.para("     ", Safe(fx.Saving))
			}
			t.para("     ", Safe(fx.Why))
			if fx.Snippet != "" {
				if shownAbove {
					t.para("     ", t.st.faint.Render("snippet: above"))
				} else {
					t.block("       ", Safe(fx.Snippet), t.st.code.Render)
				}
			}
			if fx.Caveat != "" {
				t.para("     ", t.st.faint.Render("trade-off: ")+Safe(fx.Caveat))
			}
			if fx.Note != "" {
				t.para("     ", t.st.faint.Render("note: ")+Safe(fx.Note))
			}
		}
	}
}

func (t *textWriter) wontHelp(rep advice.Report) {
	if len(rep.Ineffective) == 0 {
		return
	}
	t.heading("Won't help here")
	for _, x := range rep.Ineffective {
		t.hang("  ", "    ", t.st.bad.Render("✗ ")+Safe(x.Title)+" — "+Safe(x.Why))
	}
}

func (t *textWriter) whatFits(rep advice.Report) {
	ft := rep.WhatFits
	if ft == nil {
		return
	}
	t.heading(fmt.Sprintf("What fits %s (keeping %s free)", parser.FormatSize(ft.Capacity), parser.FormatSize(ft.Reserve)))
	wide := 0
	for _, r := range ft.Rows {
		wide = max(wide, len(r.Option))
	}
	for _, r := range ft.Rows {
		mark := t.st.good.Render("fits")
		if !r.Fits {
			mark = t.st.bad.Render("does not fit")
		}
		note := ""
		if r.Note != "" {
			note = "  " + t.st.faint.Render(r.Note)
		}
		t.line(fmt.Sprintf("  %-*s  %10s  ", wide, Safe(r.Option), parser.FormatSize(r.Bytes)) + mark + note)
	}
}

func (t *textWriter) capture(rep advice.Report) {
	if len(rep.Capture) == 0 {
		return
	}
	t.heading("Capture next")
	for _, c := range rep.Capture {
		first, rest, _ := strings.Cut(c, "\n")
		t.hang("  ", "    ", "• "+Safe(first))
		if rest != "" {
			t.block("      ", Safe(rest), t.st.code.Render)
		}
	}
}

func (t *textWriter) notices(rep advice.Report) {
	if rep.Context == nil {
		return
	}
	for _, n := range rep.Context.Notices {
		if nt, ok := noteFor(n, rep.Lines); ok {
			t.para("  ", t.st.warn.Render("note: ")+nt.lead+t.st.code.Render(SafeLine(nt.quoted))+nt.tail)
		}
	}
}

// kindWords names what ran out, in the words of the event's kind. The
// PyTorch allocator's message shape is shared by other vendors' backends
// (torch_npu's "NPU out of memory", MLU, MUSA): when its device is not
// CUDA, the verdict names that device's type instead of CUDA.
func kindWords(ev *parser.Event) string {
	switch ev.Kind {
	case parser.KindCUDA:
		if d := ev.Device; d != nil && d.Type != "" && d.Type != "cuda" && d.Type != "cpu" {
			return strings.ToUpper(d.Type) + " out of memory"
		}
		return "CUDA out of memory"
	case parser.KindHIP:
		return "HIP (ROCm) out of memory"
	case parser.KindMPS:
		return "Apple GPU (MPS/Metal) out of memory"
	case parser.KindXPU:
		return "Intel XPU out of memory"
	case parser.KindCPU:
		return "Host RAM allocation failed"
	case parser.KindCUDARuntime:
		return "GPU runtime allocation failed"
	case parser.KindCUBLAS:
		return "cuBLAS could not allocate"
	case parser.KindCUDNN:
		return "cuDNN failure (often memory)"
	case parser.KindNCCL:
		return "NCCL out of memory"
	case parser.KindServing:
		return "Serving engine memory budget exceeded"
	case parser.KindXLA:
		if ev.Variant == "stream-executor" {
			return "Device allocation failed (TensorFlow/XLA StreamExecutor)"
		}
		return "XLA RESOURCE_EXHAUSTED"
	case parser.KindTF:
		return "TensorFlow OOM"
	case parser.KindHostKill:
		return "Process killed (host memory)"
	case parser.KindPaddle:
		return "PaddlePaddle out of memory"
	case parser.KindGeneric:
		return "Out of memory"
	}
	return ev.Kind
}

func deviceName(d *parser.Device) string {
	if d.Index == nil {
		return d.Type
	}
	return fmt.Sprintf("%s:%d", d.Type, *d.Index)
}

func joinRanks(rs []int) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = fmt.Sprint(r)
	}
	return strings.Join(s, ", ")
}

func shortPath(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	parts := strings.Split(p, "/")
	if len(parts) > 3 {
		return ".../" + strings.Join(parts[len(parts)-3:], "/")
	}
	return p
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
