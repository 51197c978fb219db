package parser

import "strings"

// Repairs for text reshaped by a paste (issue 11 §2): markup a forum or
// chat added, and words a terminal or editor split.

// unBold removes the Markdown emphasis markers "**" that a post added
// around or inside a line ("** jax…XlaRuntimeError: RESO**URCE_EXHAUSTED:
// … 2.43G.**"): at the start of the line, at its end, and between two
// letters. Markers between digits ("2**32") or before a name ("**kwargs")
// are code and stay.
func unBold(s string) string {
	if !strings.Contains(s, "**") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	end := len(strings.TrimRight(s, " \t"))
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && i+1 < len(s) && s[i+1] == '*' && (i+2 >= len(s) || s[i+2] != '*') && (i == 0 || s[i-1] != '*') {
			switch {
			case i == 0, i+2 == end && i > 0 && s[i-1] != ' ',
				i > 0 && i+2 < len(s) && isLetter(s[i-1]) && isLetter(s[i+2]):
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
