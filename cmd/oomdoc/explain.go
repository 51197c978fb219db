package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/rules"
)

// ExplainCmd prints the page for one id.
type ExplainCmd struct {
	ID string `arg:"" name:"id" help:"A culprit, fix or won't-help id (see 'oomdoc rules')."`
}

// Run prints the page, or a usage error naming the known ids.
func (c *ExplainCmd) Run(env *Env) error {
	pages := map[string]advice.Page{}
	for _, p := range advice.Pages() {
		pages[p.ID] = p
	}
	p, ok := pages[strings.TrimSpace(c.ID)]
	if !ok {
		return &exitError{code: exitUsage, err: fmt.Errorf("explain: no culprit, fix or won't-help id %q; 'oomdoc rules' lists the culprits", c.ID)}
	}
	w := bufio.NewWriter(env.Stdout)
	fmt.Fprintf(w, "%s (%s)\n\n%s\n", p.ID, p.Kind, p.Title)
	if p.Body != "" {
		fmt.Fprintf(w, "\n%s\n", p.Body)
	}
	if p.Recognise != "" {
		fmt.Fprintf(w, "\nHow to recognise it:\n  %s\n", p.Recognise)
	}
	if p.Kind == "culprit" && len(p.Fixes) > 0 {
		fmt.Fprintf(w, "\nFixes, best first (oomdoc explain ID):\n")
		for _, id := range p.Fixes {
			fp := pages[id]
			fmt.Fprintf(w, "  %-30s %s\n", id, fp.Title)
		}
	}
	if p.Kind == "fix" {
		if p.Snippet != "" {
			fmt.Fprintf(w, "\n%s\n", indent(p.Snippet, "    "))
		}
		if p.Caveat != "" {
			fmt.Fprintf(w, "\nTrade-off: %s\n", p.Caveat)
		}
		if len(p.Fixes) > 0 {
			fmt.Fprintf(w, "\nFor: %s\n", strings.Join(p.Fixes, ", "))
		}
	}
	if len(p.WontHelp) > 0 {
		fmt.Fprintf(w, "\nWon't help:\n")
		for _, id := range p.WontHelp {
			wp := pages[id]
			fmt.Fprintf(w, "  %-30s %s\n", id, wp.Title)
		}
	}
	if len(p.Links) > 0 {
		fmt.Fprintf(w, "\nRead more:\n")
		for _, l := range p.Links {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	return w.Flush()
}

func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = pre + lines[i]
	}
	return strings.Join(lines, "\n")
}

// RulesCmd lists the culprits.
type RulesCmd struct{}

// Run prints one line per culprit.
func (c *RulesCmd) Run(env *Env) error {
	w := bufio.NewWriter(env.Stdout)
	for _, r := range rules.All() {
		fmt.Fprintf(w, "%-22s %s\n", r.ID, r.Title)
	}
	fmt.Fprintln(w, "\n'oomdoc explain ID' prints a culprit's page with its fixes.")
	return w.Flush()
}
