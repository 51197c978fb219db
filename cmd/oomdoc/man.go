package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// ManCmd prints oomdoc(1) in roff, generated from the same model, examples
// and environment as --help (install: oomdoc man > oomdoc.1).
type ManCmd struct{}

// Run writes the page.
func (c *ManCmd) Run(env *Env, kctx *kong.Context, info buildInfo) error {
	_, err := io.WriteString(env.Stdout, manPage(kctx.Model, info.Version))
	return err
}

// roff escapes text for a roff line: backslashes, and a leading dot or
// apostrophe that would read as a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func manFlag(b *strings.Builder, f *kong.Flag) {
	head := `\fB\-\-` + roff(f.Name) + `\fR`
	if f.Short != 0 {
		head = `\fB\-` + string(f.Short) + `\fR, ` + head
	}
	switch {
	case f.Enum != "":
		head += ` \fI` + roff(strings.Join(f.EnumSlice(), "|")) + `\fR`
	case !f.IsBool():
		head += ` \fI` + roff(f.FormatPlaceHolder()) + `\fR`
	}
	fmt.Fprintf(b, ".TP\n%s\n%s\n", head, roff(f.Help))
}

// manPage renders the page.
func manPage(app *kong.Application, ver string) string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH OOMDOC 1 \"\" \"oomdoc %s\" \"User Commands\"\n", roff(ver))
	b.WriteString(".SH NAME\noomdoc \\- explain out\\-of\\-memory crashes\n")
	b.WriteString(".SH SYNOPSIS\n\\fBoomdoc\\fR [\\fIFLAGS\\fR] [\\fIFILE\\fR...]\n.br\n\\fBoomdoc\\fR \\fICOMMAND\\fR [\\fIFLAGS\\fR] [\\fIARGS\\fR...]\n")
	b.WriteString(".SH DESCRIPTION\n")
	for i, para := range strings.Split(description, "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roff(strings.ReplaceAll(para, "`", "")) + "\n")
	}
	b.WriteString(".SH OPTIONS\n")
	for _, group := range app.AllFlags(true) {
		for _, f := range group {
			manFlag(&b, f)
		}
	}
	b.WriteString(".SH COMMANDS\n")
	for _, n := range app.Children {
		if n.Hidden || n.Type != kong.CommandNode {
			continue
		}
		fmt.Fprintf(&b, ".SS \"%s\"\n", roff(strings.TrimSpace(n.Name+" "+n.Summary()[len(n.Name):])))
		b.WriteString(roff(n.Help) + "\n")
		if app.DefaultCmd == n {
			b.WriteString("It is the command that runs when none is named.\n")
		}
		for _, p := range n.Positional {
			fmt.Fprintf(&b, ".TP\n\\fI%s\\fR\n%s\n", roff(p.Name), roff(p.Help))
		}
		for _, f := range n.Flags {
			if !f.Hidden {
				manFlag(&b, f)
			}
		}
	}
	b.WriteString(".SH ENVIRONMENT\n")
	for _, it := range environment() {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roff(it.left), roff(it.right))
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, it := range []helpItem{
		{"0", "a report was printed (whether or not a failure was found)"},
		{"1", "the report could not be written"},
		{"2", "bad usage"},
		{"3", "an input could not be read; the readable inputs are still reported"},
	} {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", it.left, roff(it.right))
	}
	b.WriteString("In \\fBoomdoc run \\-\\- CMD\\fR, oomdoc exits with CMD's own status.\n")
	b.WriteString(".SH EXAMPLES\n")
	for _, it := range examples() {
		fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roff(it.left), roff(it.right))
	}
	b.WriteString(".SH SEE ALSO\n\\fBoomdoc rules\\fR lists the culprits; \\fBoomdoc explain\\fR \\fIID\\fR prints one page.\n")
	return b.String()
}
