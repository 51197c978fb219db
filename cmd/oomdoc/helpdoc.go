package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// description is the program's summary in --help and the man page.
const description = "oomdoc explains out-of-memory crashes: what ran out, what holds the memory, why, and which change fixes it.\n\nExit status: 0 report printed; 2 bad usage; 3 an input could not be read; 1 the report could not be written. `oomdoc run` exits with the command's own status."

// A helpItem is one row of the examples or the environment in --help and
// the man page.
type helpItem struct{ left, right string }

// examples are the command lines --help and the man page show.
func examples() []helpItem {
	return []helpItem{
		{"python train.py 2>&1 | oomdoc", "read the log on standard input"},
		{"oomdoc crash.log", "read a saved log (.log, .gz, .ipynb)"},
		{"oomdoc", "on a terminal: paste the log, then Ctrl-D"},
		{"oomdoc run -- python train.py", "run it; report only if it fails"},
		{"python train.py 2>&1 | oomdoc --tee", "show the log live, report at the end"},
		{"oomdoc -f json -o report.json crash.log", "write the JSON report to a file"},
		{"oomdoc explain visual-tokens", "the page for one culprit or fix"},
	}
}

// environment lists the variables oomdoc reads.
func environment() []helpItem {
	return []helpItem{
		{"NO_COLOR", "set and not empty: no colour with --color=auto"},
		{"CLICOLOR_FORCE, FORCE_COLOR", "set and not 0: colour even when not on a terminal (NO_COLOR wins)"},
		{"CLICOLOR=0", "no colour with --color=auto unless forced"},
		{"TERM=dumb", "no colour with --color=auto"},
		{"COLUMNS", "width of the text report when standard output is not a terminal"},
	}
}

// helpPrinter is kong's help with oomdoc's usage line, examples and
// environment added to the top-level page.
func helpPrinter(options kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil {
		return kong.DefaultHelpPrinter(options, ctx)
	}
	if _, err := io.WriteString(ctx.Stdout, "Usage: oomdoc [FILE…] [flags]\n       oomdoc <command> [flags]\n"); err != nil {
		return err
	}
	options.NoAppSummary = true
	if err := kong.DefaultHelpPrinter(options, ctx); err != nil {
		return err
	}
	var buf bytes.Buffer
	if def := ctx.Model.DefaultCmd; def != nil {
		buf.WriteString("\nReport flags (for oomdoc [FILE…]; run takes all but --tee):\n")
		writeItems(&buf, flagItems(def))
	}
	buf.WriteString("\nExamples:\n")
	writeItems(&buf, examples())
	buf.WriteString("\nEnvironment:\n")
	writeItems(&buf, environment())
	_, err := ctx.Stdout.Write(buf.Bytes())
	return err
}

// flagItems lists a command's own visible flags as help rows.
func flagItems(n *kong.Node) []helpItem {
	var items []helpItem
	for _, f := range n.Flags {
		if f.Hidden {
			continue
		}
		left := "    --" + f.Name
		if f.Short != 0 {
			left = "-" + string(f.Short) + ", --" + f.Name
		}
		switch {
		case f.Enum != "":
			left += "=" + strings.Join(f.EnumSlice(), "|")
		case !f.IsBool():
			left += "=" + f.FormatPlaceHolder()
		}
		items = append(items, helpItem{left, f.Help})
	}
	return items
}

// writeItems writes rows as two columns within 80 columns, the right one
// wrapped under itself, and under the left one when that is long.
func writeItems(w io.Writer, items []helpItem) {
	const total, gap = 80, 4
	width := 0
	for _, it := range items {
		if len(it.left) <= 36 {
			width = max(width, len(it.left))
		}
	}
	pad := strings.Repeat(" ", 2+width+gap)
	for _, it := range items {
		lines := wrapWords(it.right, total-len(pad))
		if len(it.left) > width {
			fmt.Fprintf(w, "  %s\n", it.left)
		} else {
			lines[0] = fmt.Sprintf("  %-*s%s%s", width, it.left, strings.Repeat(" ", gap), lines[0])
			fmt.Fprintln(w, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintln(w, pad+l)
		}
	}
}

// wrapWords breaks s into lines of at most width bytes at spaces.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
