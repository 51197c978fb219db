package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/parser"
	"github.com/oomdoc/oomdoc/snapshot"
)

// measuredFor is the snapshot read for one of the report's inputs, nil
// when there is none.
func measuredFor(rep advice.Report, o Options) *snapshot.Measured {
	for _, in := range rep.Inputs {
		if m := o.Measured[in]; m != nil {
			return m
		}
	}
	return nil
}

// kindName is how the report names a holder kind.
func kindName(k string) string {
	switch k {
	case snapshot.KindOptimizer:
		return "optimizer state"
	case snapshot.KindKVCache:
		return "KV cache"
	}
	return k
}

// siteText is "from_pretrained, train.py:14" — the entry point the kind
// was recognised by, and the allocation site (file base name and line).
func siteText(h snapshot.Holder) string {
	var parts []string
	if h.Because != "" {
		parts = append(parts, h.Because+"()")
	}
	if h.Site == nil {
		return "no stack recorded (allocated before memory history was on, or by a thread without Python)"
	}
	where := path.Base(h.Site.File)
	if h.Site.Line > 0 {
		where += fmt.Sprintf(":%d", h.Site.Line)
	}
	if h.Because == "" && h.Site.Function != "" {
		where += " " + h.Site.Function
	}
	parts = append(parts, where)
	return Safe(strings.Join(parts, ", "))
}

// freeText is the free-memory sentence: the device's free memory, what
// PyTorch holds cached, and the largest free block against the request.
func freeText(m *snapshot.Measured) string {
	var parts []string
	if m.OOM != nil && m.OOM.DeviceFreeBytes != nil {
		parts = append(parts, parser.FormatSize(*m.OOM.DeviceFreeBytes)+" free on the device")
	}
	parts = append(parts, parser.FormatSize(m.InactiveBytes)+" cached free by PyTorch")
	lf := "largest free block " + parser.FormatSize(m.LargestFreeBlockBytes)
	if m.OOM != nil {
		req := m.OOM.RequestedBytes
		if m.LargestFreeBlockBytes < req {
			lf += " < request " + parser.FormatSize(req)
		} else {
			lf += " ≥ request " + parser.FormatSize(req)
		}
	}
	parts = append(parts, lf)
	s := strings.Join(parts, ", ")
	if m.Fragmented() {
		s += " — fragmented: enough is cached free in total, but in pieces"
	}
	return s
}

// measured writes the first screen's "what holds the memory, measured".
func (t *textWriter) measured(m *snapshot.Measured) {
	if m == nil {
		return
	}
	t.line("")
	t.line(t.st.heading.Render("Measured") + fmt.Sprintf(" (memory snapshot %s, cuda:%d): %s active of %s reserved",
		Safe(path.Base(m.Input)), m.Device, parser.FormatSize(m.ActiveBytes), parser.FormatSize(m.ReservedBytes)))
	for _, k := range m.ByKind() {
		more := ""
		if k.Sites > 1 {
			more = fmt.Sprintf("; %d sites", k.Sites)
		}
		t.hang("  "+fmt.Sprintf("%-16s %10s  ", kindName(k.Kind), parser.FormatSize(k.Bytes)), strings.Repeat(" ", 31),
			fmt.Sprintf("%s (%d %s%s)", siteText(k.Top), k.Blocks, plural(k.Blocks, "block"), more))
	}
	if m.OmittedHolders > 0 {
		t.para("  ", fmt.Sprintf("… and %d smaller sites holding %s", m.OmittedHolders, parser.FormatSize(m.OmittedBytes)))
	}
	t.hang("  free: ", "        ", freeText(m))
}

// markdownMeasured writes the measured holders as a table.
func markdownMeasured(p func(string, ...any), m *snapshot.Measured) {
	if m == nil {
		return
	}
	p("### Measured: what holds the memory\n\n")
	p("From the memory snapshot %s (cuda:%d): %s active of %s reserved.\n\n", mdCode(path.Base(m.Input)), m.Device,
		parser.FormatSize(m.ActiveBytes), parser.FormatSize(m.ReservedBytes))
	p("| holder | bytes | blocks | site |\n|---|---|---|---|\n")
	for _, h := range m.Holders {
		kind := kindName(h.Kind)
		if h.Because != "" {
			kind += " (" + mdCode(h.Because) + ")"
		}
		site := "no stack recorded"
		if h.Site != nil {
			site = mdCode(fmt.Sprintf("%s:%d %s", h.Site.File, h.Site.Line, h.Site.Function))
		}
		p("| %s | %s | %d | %s |\n", kind, parser.FormatSize(h.Bytes), h.Blocks, site)
	}
	if m.OmittedHolders > 0 {
		p("| %d smaller sites | %s | | |\n", m.OmittedHolders, parser.FormatSize(m.OmittedBytes))
	}
	p("\nFree: %s.\n\n", mdText(freeText(m)))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
