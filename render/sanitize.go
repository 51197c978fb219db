package render

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe neutralises text quoted from a log before it reaches a terminal or
// a Markdown page: C0 controls (except tab and newline), DEL, ESC-introduced sequences
// (CSI, OSC — clipboard writes and title changes included), C1 controls and
// bidirectional overrides become visible escapes such as \x1b or \u202e,
// so a log can neither restyle, retitle nor write to the user's clipboard,
// nor reorder what the user reads. Invalid UTF-8 becomes U+FFFD.
func Safe(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
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
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return false
}

// escapeJSONUnsafe rewrites raw C1 controls, DEL and bidi overrides in
// encoded JSON as \u escapes. encoding/json already escapes C0 controls
// (ESC included); these characters can only occur inside strings there, so
// the rewrite keeps the document's meaning.
func escapeJSONUnsafe(data []byte) []byte {
	if !bytes.ContainsAny(data, "\x7f\u0080\u0081\u0082\u0083\u0084\u0085\u0086\u0087\u0088\u0089\u008a\u008b\u008c\u008d\u008e\u008f\u0090\u0091\u0092\u0093\u0094\u0095\u0096\u0097\u0098\u0099\u009a\u009b\u009c\u009d\u009e\u009f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c") {
		return data
	}
	var b bytes.Buffer
	for len(data) > 0 {
		r, n := utf8.DecodeRune(data)
		if r != '\t' && r != '\n' && r != '\r' && unsafeRune(r) && r >= 0x7f {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.Write(data[:n])
		}
		data = data[n:]
	}
	return b.Bytes()
}
