package render

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles are the report's text styles, built from a renderer bound to the
// writer the report goes to. Only the 16 ANSI colours are used, so the
// user's terminal theme decides the actual colours.
type styles struct {
	heading, verdict, culprit, conf, good, bad, warn, faint, code, id lipgloss.Style
	barAlloc, barUnalloc, barOutside, barFree, barRequest             lipgloss.Style
}

func newStyles(w io.Writer, color bool) styles {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	s := r.NewStyle
	return styles{
		heading:    s().Bold(true).Underline(true),
		verdict:    s().Bold(true).Foreground(lipgloss.Color("1")),
		culprit:    s().Bold(true).Foreground(lipgloss.Color("6")),
		conf:       s().Foreground(lipgloss.Color("3")),
		good:       s().Foreground(lipgloss.Color("2")),
		bad:        s().Foreground(lipgloss.Color("1")),
		warn:       s().Foreground(lipgloss.Color("3")),
		faint:      s().Faint(true),
		code:       s().Foreground(lipgloss.Color("5")),
		id:         s().Foreground(lipgloss.Color("4")),
		barAlloc:   s().Foreground(lipgloss.Color("4")),
		barUnalloc: s().Foreground(lipgloss.Color("6")),
		barOutside: s().Foreground(lipgloss.Color("5")),
		barFree:    s().Foreground(lipgloss.Color("2")),
		barRequest: s().Foreground(lipgloss.Color("1")).Bold(true),
	}
}
