package render

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe neutralises text quoted from a log — or taken from a file name or a
// flag — before it reaches a terminal or a Markdown page: C0 controls
// (except tab and newline), DEL, ESC-introduced sequences (CSI, OSC —
// clipboard writes and title changes included), C1 controls, bidirectional
// controls, zero-width characters (U+200B–U+200D, U+2060, U+FEFF) and the
// Unicode line and paragraph separators become visible escapes such as
// \x1b, \u202e or \u200b, so a log can neither restyle, retitle nor write
// to the user's clipboard, nor reorder or hide what the user reads. Invalid
// UTF-8 becomes U+FFFD.
func Safe(s string) string { return neutralise(s, false) }

// SafeLine is Safe for text that must stay on one line (a file name, a
// flag's value, a quoted log line): a newline becomes \x0a too.
func SafeLine(s string) string { return neutralise(s, true) }

func neutralise(s string, oneLine bool) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) || oneLine && r == '\n' {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteRune('\uFFFD')
		case r < 0x80 && (unsafeRune(r) || oneLine && r == '\n'):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether r is a control or invisible format character
// that Safe neutralises.
func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f:
		return true // C0, DEL
	case r >= 0x80 && r <= 0x9f:
		return true // C1
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true // bidirectional controls
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff:
		return true // zero-width space, non-joiner, joiner, word joiner, BOM
	case r == 0x2028, r == 0x2029:
		return true // line and paragraph separators
	}
	return false
}

// escapeJSONUnsafe rewrites raw C1 controls, DEL, bidirectional controls
// and zero-width characters in encoded JSON as \u escapes. encoding/json
// already escapes C0 controls (ESC included); these characters can only
// occur inside strings there, so the rewrite keeps the document's meaning
// exactly: a JSON reader decodes the same strings.
func escapeJSONUnsafe(data []byte) []byte {
	dirty := false
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r >= 0x7f && unsafeRune(r) {
			dirty = true
			break
		}
		i += n
	}
	if !dirty {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r >= 0x7f && unsafeRune(r) && !(r == utf8.RuneError && n == 1) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, data[:n]...)
		}
		data = data[n:]
	}
	return out
}

// mdText makes text safe in Markdown prose (a heading, a list item, a
// table cell): no controls, one line, and every character CommonMark or
// GitHub gives a meaning inline — emphasis, strikethrough, links, images,
// raw HTML, entities, table bars — backslash-escaped, so it renders as the
// characters it is; a block marker at its start (#, -, +, =, "1.") is
// escaped too, since the text may begin a line. Backticks are kept: a code
// span only makes text inert, and the advice quotes code with them.
func mdText(s string) string {
	s = SafeLine(s)
	var b strings.Builder
	lead := true // at the start of the text, where a block marker would act
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' && i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1]):
			// intraword (max_split_size_mb): CommonMark never emphasises it
		case strings.IndexByte("\\*_[]<>|&~", c) >= 0:
			b.WriteByte('\\')
		case lead && strings.IndexByte("#-+=", c) >= 0:
			b.WriteByte('\\')
		case lead && digitsThenMarker(s[i:]):
			for s[i] >= '0' && s[i] <= '9' {
				b.WriteByte(s[i])
				i++
			}
			b.WriteByte('\\')
			c = s[i]
		}
		b.WriteByte(c)
		if c != ' ' {
			lead = false
		}
	}
	return b.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// digitsThenMarker reports whether s starts like an ordered list item
// ("12. " or "3)" at the end), not like a number ("26.7").
func digitsThenMarker(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && (i+1 == len(s) || s[i+1] == ' ')
}

// mdCode renders text as an inline code span whose delimiter is longer
// than any backtick run inside it.
func mdCode(s string) string {
	s = mdCodeText(s)
	tick := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return tick + s + tick
}

// mdCodeText is text for inside a code span or a table cell's code: one
// line, no controls, table bars escaped (GitHub splits cells on them even
// in code).
func mdCodeText(s string) string {
	return strings.ReplaceAll(SafeLine(s), "|", "\\|")
}

// mdBlock renders content as a fenced code block: every line indented by
// indent (so the block stays inside a list item), the fence longer than
// any backtick run in the content, so nothing in it can close the fence.
func mdBlock(indent, lang, content string) string {
	content = Safe(strings.TrimRight(content, "\n"))
	fence := strings.Repeat("`", max(3, longestRun(content, '`')+1))
	var b strings.Builder
	b.WriteString(indent + fence + lang + "\n")
	for _, l := range strings.Split(content, "\n") {
		b.WriteString(indent + l + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
