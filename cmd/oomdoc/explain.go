package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/render"
)

// ExplainCmd prints the page for one id.
type ExplainCmd struct {
	ID      string `arg:"" name:"id" help:"A culprit, fix or won't-help id (see 'oomdoc rules')."`
	NoPager bool   `name:"no-pager" help:"Do not page a page taller than the terminal."`
}

// Run prints the page, or a usage error that suggests the nearest id.
func (c *ExplainCmd) Run(env *Env) error {
	pages := advice.Pages()
	index := map[string]advice.Page{}
	ids := make([]string, 0, len(pages))
	for _, p := range pages {
		index[p.ID] = p
		ids = append(ids, p.ID)
	}
	id := strings.TrimSpace(c.ID)
	p, ok := index[id]
	if !ok {
		msg := fmt.Sprintf("explain: no culprit, fix or won't-help id %q", id)
		if near := nearest(id, ids); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return &exitError{code: exitUsage, err: fmt.Errorf("%s ('oomdoc rules' lists every id)", msg)}
	}
	pw := &pageWriter{width: pageWidth(env)}
	pw.page(p, index)
	return writePaged(env, env.Stdout, pw.buf.Bytes(), c.NoPager)
}

// pageWidth is the terminal's width up to 100 columns, else 80.
func pageWidth(env *Env) int {
	if env.IsTerminal(env.Stdout) {
		if w := env.TermWidth(env.Stdout); w > 0 {
			return min(w, 100)
		}
	}
	return 80
}

// pageWriter lays out explain pages and the rules list, wrapped to width.
type pageWriter struct {
	buf   bytes.Buffer
	width int
}

// para writes text wrapped with an indent on every line.
func (w *pageWriter) para(indent, s string) {
	for _, l := range strings.Split(render.Wrap(s, max(w.width-len(indent), 20)), "\n") {
		w.buf.WriteString(strings.TrimRight(indent+l, " ") + "\n")
	}
}

// item writes "id  title" with the title wrapped under its own column.
func (w *pageWriter) item(id, title string, col int) {
	pad := strings.Repeat(" ", col+4)
	lines := strings.Split(render.Wrap(title, max(w.width-len(pad), 20)), "\n")
	fmt.Fprintf(&w.buf, "  %-*s  %s\n", col, id, lines[0])
	for _, l := range lines[1:] {
		w.buf.WriteString(pad + l + "\n")
	}
}

func (w *pageWriter) heading(s string) { w.buf.WriteString("\n" + s + "\n") }

// list writes ids with their titles.
func (w *pageWriter) list(ids []string, index map[string]advice.Page) {
	col := 0
	for _, id := range ids {
		col = max(col, len(id))
	}
	for _, id := range ids {
		w.item(id, index[id].Title, col)
	}
}

// page writes one explain page.
func (w *pageWriter) page(p advice.Page, index map[string]advice.Page) {
	fmt.Fprintf(&w.buf, "%s (%s)\n\n", p.ID, p.Kind)
	w.para("", p.Title)
	if p.Body != "" {
		w.buf.WriteString("\n")
		w.para("", p.Body)
	}
	if p.Recognise != "" {
		w.heading("How to recognise it:")
		w.para("  ", p.Recognise)
	}
	switch p.Kind {
	case "culprit":
		if len(p.Fixes) > 0 {
			w.heading("Fixes, best first (oomdoc explain ID):")
			w.list(p.Fixes, index)
		}
	case "fix":
		if p.Snippet != "" {
			w.buf.WriteString("\n")
			for _, l := range strings.Split(p.Snippet, "\n") {
				w.buf.WriteString(strings.TrimRight("    "+l, " ") + "\n")
			}
		}
		if p.Caveat != "" {
			w.buf.WriteString("\n")
			w.para("", "Trade-off: "+p.Caveat)
		}
		if len(p.Fixes) > 0 {
			w.heading("Fixes these culprits:")
			w.list(p.Fixes, index)
		}
	case "won't help":
		if len(p.Fixes) > 0 {
			w.heading("Reports warn about it for:")
			w.list(p.Fixes, index)
		}
	}
	if len(p.WontHelp) > 0 {
		w.heading("Won't help (oomdoc explain ID):")
		w.list(p.WontHelp, index)
	}
	if len(p.Links) > 0 {
		w.heading("Read more:")
		for _, l := range p.Links {
			w.buf.WriteString("  " + l + "\n")
		}
	}
}

// RulesCmd lists every id oomdoc can name.
type RulesCmd struct{}

// Run prints the culprits, the fixes and the remedies that do not help,
// one line each.
func (c *RulesCmd) Run(env *Env) error {
	pw := &pageWriter{width: pageWidth(env)}
	index := map[string]advice.Page{}
	byKind := map[string][]string{}
	for _, p := range advice.Pages() {
		index[p.ID] = p
		byKind[p.Kind] = append(byKind[p.Kind], p.ID)
	}
	for i, k := range []struct{ kind, heading string }{
		{"culprit", "Culprits (what holds the memory)"},
		{"fix", "Fixes"},
		{"won't help", "Won't help (popular remedies oomdoc rules out)"},
	} {
		if i > 0 {
			pw.buf.WriteString("\n")
		}
		pw.buf.WriteString(k.heading + ":\n")
		pw.list(byKind[k.kind], index)
	}
	pw.buf.WriteString("\n'oomdoc explain ID' prints the page for any of these ids.\n")
	_, err := env.Stdout.Write(pw.buf.Bytes())
	return err
}

// nearest is the id closest to s by edit distance, "" when none is close
// enough to be a typo (more than a third of its length away).
func nearest(s string, ids []string) string {
	best, dist := "", len(s)/3+2
	for _, id := range ids {
		if d := editDistance(s, id); d < dist {
			best, dist = id, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (ids are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
