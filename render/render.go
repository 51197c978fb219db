// Package render prints an advice.Report as a terminal report (lipgloss,
// one renderer bound to the real writer), as Markdown to paste into an
// issue, or as the JSON of spec/report-json.md. It never reads the
// environment: colour and width arrive in Options.
package render

import (
	"fmt"
	"io"

	"github.com/oomdoc/oomdoc/advice"
	"github.com/oomdoc/oomdoc/snapshot"
)

// Formats the report can be written in.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Options are the presentation decisions made by the caller.
type Options struct {
	Color bool // 16-colour ANSI styling; false writes plain text
	Width int  // wrap width in columns
	// Measured are the memory snapshots read, by the input name of the
	// report they belong to.
	Measured map[string]*snapshot.Measured
}

// Write renders the report in the format.
func Write(w io.Writer, format string, rep advice.Report, o Options) error {
	if o.Width < 40 {
		o.Width = 40
	}
	var err error
	switch format {
	case FormatJSON:
		err = writeJSON(w, rep, measuredFor(rep, o))
	case FormatMarkdown:
		err = writeMarkdown(w, rep, measuredFor(rep, o))
	case FormatText, "":
		err = Text(w, rep, o)
	default:
		return fmt.Errorf("render: unknown format %q", format)
	}
	if err != nil {
		return fmt.Errorf("write %s report: %w", format, err)
	}
	return nil
}
